// More signed values narrower than their C holder: a negative constant,
// a lookahead, a register cell the program wrote and one the control
// plane wrote (as bare bits). Each is widened to int<8> to show its sign.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> tag; int<8> konst; int<8> peeked; int<8> written; int<8> set; int<8> halved; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { int<4> peeked; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        meta.peeked = pkt.lookahead<int<4>>();
        pkt.extract(hdr.op);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<int<4>>(2) cells;
    apply {
        int<4> konst = -2;
        hdr.op.konst = (int<8>)konst;
        hdr.op.peeked = (int<8>)meta.peeked;
        cells.write(0, -3);
        int<4> cell;
        cells.read(cell, 0);
        hdr.op.written = (int<8>)cell;
        cells.read(cell, 1);
        hdr.op.set = (int<8>)cell;
        hdr.op.halved = (int<8>)(konst >> 1);
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
