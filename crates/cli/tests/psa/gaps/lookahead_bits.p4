// lookahead of bit strings of odd widths, narrow and wider than 64 bits
// (one sliced in a select), then a value set over two fields of a header
// whose last field shares a byte with a 71-bit one.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// What the parser saw ahead, written out after the probed bytes.
header peek_t {
    bit<13> p13;
    bit<3>  pad;
    bit<72> p72;   // lookahead<bit<71>>, zero-extended
    bit<8>  which; // the value set state reached
}

header probe_t {
    bit<4>  kind;
    bit<12> tag;
    bit<71> big;
    bit<1>  last;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
    peek_t peek;
}

struct meta_t {}
struct empty_t {}

struct pair_t {
    bit<4>  kind;
    bit<12> tag;
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    value_set<pair_t>(4) pairs;
    state start {
        pkt.extract(hdr.ethernet);
        hdr.peek.setValid();
        hdr.peek.p13 = pkt.lookahead<bit<13>>();
        hdr.peek.p72 = (bit<72>) pkt.lookahead<bit<71>>();
        transition select(hdr.ethernet.ether_type, pkt.lookahead<bit<87>>()[86:83]) {
            (0x9000, 0xf): accept;
            (0x9000, _): probe;
            default: accept;
        }
    }
    state probe {
        pkt.extract(hdr.probe);
        transition select(hdr.probe.kind, hdr.probe.tag) {
            pairs: in_pairs;
            default: accept;
        }
    }
    state in_pairs {
        hdr.peek.which = 1;
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
        pkt.emit(hdr.peek);
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
