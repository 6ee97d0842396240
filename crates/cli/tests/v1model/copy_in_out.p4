// P4's copy-in/copy-out and left-to-right evaluation where a pointer or a
// hoisted call could get them wrong: a function writing the operand to its
// left, an action writing the variable its inout argument came from, an
// `in` header argument the action changes behind it, an `exit` after an
// inout write, and a slice as an inout argument. (A failing varbit
// extract: varbit_too_short.)
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> a; bit<8> b; bit<8> len; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

bit<8> bump(inout bit<8> x) {
    x = x + 10;
    return 1;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.op);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action overwrite_behind(inout op_t o) {
        hdr.op.b = 0x77;   // lost: the copy of hdr.op comes back over it
        o.a = o.a + 1;
    }
    action read_in(in op_t o) {
        hdr.op.a = 0x55;
        hdr.op.b = o.a;    // the value copied in, not 0x55
    }
    action bump_nibble(inout bit<4> n) {
        n = n + 1;
    }
    action set_and_exit(inout bit<8> x) {
        x = 0x33;
        exit;
    }
    apply {
        if (hdr.op.op == 1) {
            hdr.op.b = hdr.op.a + bump(hdr.op.a);
        } else if (hdr.op.op == 2) {
            overwrite_behind(hdr.op);
        } else if (hdr.op.op == 3) {
            read_in(hdr.op);
        } else if (hdr.op.op == 4) {
            set_and_exit(hdr.op.b);
        } else if (hdr.op.op == 5) {
            bump_nibble(hdr.op.b[5:2]);
        }
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
