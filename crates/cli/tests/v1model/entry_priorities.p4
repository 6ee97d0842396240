// Const entry priorities: p4c's `@priority(N)` as BMv2 reads it (the
// smallest wins, an entry without one ranks by its position), in a table
// whose entries without priorities would be tried in written order.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> a; bit<8> won; bit<8> in_order; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action won(bit<8> entry) { hdr.op.won = entry; }
    action in_order(bit<8> entry) { hdr.op.in_order = entry; }
    table annotated {
        key = { hdr.op.a : ternary; }
        actions = { won; NoAction; }
        default_action = NoAction();
        const entries = {
            0x10 &&& 0xF0 : won(1) @priority(5);
            0x11          : won(2);
            0x13 &&& 0xFF : won(3) @priority(1);
        }
    }
    table written_order {
        key = { hdr.op.a : ternary; }
        actions = { in_order; NoAction; }
        default_action = NoAction();
        const entries = {
            0x10 &&& 0xF0 : in_order(1);
            0x11          : in_order(2);
            0x13 &&& 0xFF : in_order(3);
        }
    }
    apply {
        sm.egress_spec = 1;
        annotated.apply();
        written_order.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
