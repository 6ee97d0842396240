// Expressions and control shapes: saturating arithmetic, an arithmetic
// shift of a signed value, a shift by a run-time amount, concatenation,
// a function with out parameters, a sub-control with a constructor
// argument, a table keyed on an expression (named by @name), and
// `action_run` of a miss being the default action.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header data_t {
    bit<8> a;
    bit<8> b;
    int<8> s;
    bit<16> w;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
    bit<8> r4;
    bit<16> r5;
    bit<8> r6;
    bit<8> hi;
    bit<8> lo;
}

struct headers_t {
    ethernet_t ethernet;
    data_t data;
}

struct meta_t {}
struct empty_t {}

void split(in bit<16> w, out bit<8> hi, out bit<8> lo) {
    hi = w[15:8];
    lo = w[7:0];
}

control Add(inout bit<8> x)(bit<8> k) {
    apply {
        x = x + k;
    }
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.data);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Add(8w3) add3;

    action set_r6(bit<8> v) { hdr.data.r6 = v; }
    table by_high {
        key = { hdr.data.a & 0xf0 : exact @name("a_high"); }
        actions = { set_r6; }
        default_action = set_r6(0xdd);
    }

    apply {
        hdr.data.r1 = hdr.data.a |+| hdr.data.b;
        hdr.data.r2 = hdr.data.a |-| hdr.data.b;
        hdr.data.r3 = (bit<8>) (hdr.data.s >> 1);
        hdr.data.r4 = hdr.data.a >> (hdr.data.b & 7);
        hdr.data.r5 = hdr.data.a ++ hdr.data.b;
        split(hdr.data.w, hdr.data.hi, hdr.data.lo);
        add3.apply(hdr.data.r1);
        switch (by_high.apply().action_run) {
            set_r6: { hdr.data.r6 = hdr.data.r6 + 1; }
            default: { hdr.data.r6 = 0; }
        }
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.data);
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
