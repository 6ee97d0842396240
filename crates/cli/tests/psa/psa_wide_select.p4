// A parser selecting on a 96-bit field: a constant, a mask that keeps
// only some bytes, a value set of 96-bit members, then the default. The
// state reached writes its number into `path`; a rejected packet drops.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<96> id;
    bit<8>  path;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    value_set<bit<96>>(4) known;
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition select(hdr.probe.id) {
            96w0x0102030405060708090a0b0c: exact_id;
            96w0xaa0000000000000000bb0000 &&& 96w0xff0000000000000000ff0000: masked_id;
            known: member;
            96w0xffffffffffffffffffffffff: reject;
            default: accept;
        }
    }
    state exact_id {
        hdr.probe.path = 1;
        transition accept;
    }
    state masked_id {
        hdr.probe.path = 2;
        transition accept;
    }
    state member {
        hdr.probe.path = 3;
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
