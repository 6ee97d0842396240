// Signed values narrower than their C holder (int<4>, int<12>) that come
// in as bare bits keep their sign: header fields read from the packet,
// at a byte boundary or not, and action parameters from a table entry or
// a constant default action. Widening casts, saturating arithmetic and
// comparisons show it.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t {
    int<4> n; bit<4> pad; int<12> m; bit<4> pad2; bit<8> k;
    int<8> n_wide; int<16> m_wide; int<8> sat; int<8> p_wide; int<16> q_wide; bit<8> neg;
}
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action widen(int<4> p, int<12> q) {
        hdr.op.p_wide = (int<8>)p;
        hdr.op.q_wide = (int<16>)q;
    }
    table params {
        key = { hdr.op.k : exact; }
        actions = { widen; }
        const default_action = widen(-2, -3);
    }
    apply {
        hdr.op.n_wide = (int<8>)hdr.op.n;
        hdr.op.m_wide = (int<16>)hdr.op.m;
        hdr.op.sat = (int<8>)(hdr.op.n |+| 4s7);
        hdr.op.neg = hdr.op.n < 0 ? 8w1 : 8w0;
        params.apply();
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
