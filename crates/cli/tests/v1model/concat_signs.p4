// `++` takes the sign of its left operand and only the bits of its right
// one: a negative right operand must not spill its sign into the high
// part, at natural widths, odd widths and a result wider than 64 bits.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t {
    int<8> s; bit<8> u; int<4> n; bit<4> pad;
    bit<16> su; bit<16> us; bit<8> nn; bit<12> un; bit<4> pad2; bit<72> wide;
}
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.op.su = (bit<16>)(hdr.op.s ++ hdr.op.u);
        hdr.op.us = hdr.op.u ++ hdr.op.s;
        hdr.op.nn = (bit<8>)(hdr.op.n ++ hdr.op.n);
        hdr.op.un = hdr.op.u ++ hdr.op.n;
        hdr.op.wide = hdr.op.u ++ (int<64>)hdr.op.s;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
