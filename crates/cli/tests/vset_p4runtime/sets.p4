// Parser value sets over P4Runtime (tests/vset_p4runtime.rs, driven by
// sets.py): `pairs` matches the EtherType by ternary and the source
// address's last byte by range; `types` is an exact set of EtherTypes. A
// frame some member matches goes to the host stack (XDP_PASS), any other
// is dropped.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t {
    bit<8> member;
}
struct empty_t {}

struct pair_t {
    @match(ternary) bit<16> ether_type;
    @match(range)   bit<8>  src_low;
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    value_set<pair_t>(2) pairs;
    value_set<bit<16>>(2) types;
    state start {
        meta.member = 0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type, hdr.ethernet.src[7:0]) {
            pairs: member;
            default: by_type;
        }
    }
    state by_type {
        transition select(hdr.ethernet.ether_type) {
            types: member;
            default: accept;
        }
    }
    state member {
        meta.member = 1;
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (meta.member == 1) {
            send_to_port(ostd, PSA_PORT_CPU);
        } else {
            ingress_drop(ostd);
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
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
