// Table keys that apply another table and call a function with a side
// effect, and an action bound in the `actions` list with an argument that
// calls that function: the keys are computed at `apply`, in order, the
// bound argument when the action runs (P4 13.2, 14.1).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header t_t { bit<8> a; bit<8> count; bit<8> marked; }
struct headers_t { eth_t eth; t_t t; }
struct meta_t { bit<8> unused; }

bit<8> bump(inout bit<8> x) {
    x = x + 1;
    return x;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_out(bit<9> port) { sm.egress_spec = port; }
    action mark(in bit<8> v) { hdr.t.marked = v; }
    table known {
        key = { hdr.t.a : exact; }
        actions = { NoAction; }
        const entries = { 7 : NoAction(); }
        default_action = NoAction();
    }
    table route {
        key = {
            known.apply().hit : exact @name("known_hit");
            bump(hdr.t.count) : exact @name("count");
        }
        actions = { set_out; mark(bump(hdr.t.count)); }
        const entries = {
            (true, 1) : set_out(2);
            (true, 2) : set_out(3);
        }
        default_action = mark(bump(hdr.t.count));
    }
    apply {
        sm.egress_spec = 1;
        route.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.t); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
