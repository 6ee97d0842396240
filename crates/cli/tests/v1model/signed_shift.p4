// `>>` on signed values is arithmetic: the sign fills the top, and a shift
// by the width or more leaves only the sign (-1 or 0), by a run-time
// amount and by a constant one; int<64> takes the same path.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { int<32> a; bit<8> b; int<32> by_b; int<32> by_40; int<64> wide; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.op.by_b = hdr.op.a >> hdr.op.b;
        hdr.op.by_40 = hdr.op.a >> 40;
        hdr.op.wide = ((int<64>)hdr.op.a << 32) >> hdr.op.b;
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
