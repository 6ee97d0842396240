// Non-const `entries`: tables that start with entries the control plane
// may then change. `ports` (exact) has no priorities; `marks` (ternary)
// lets the largest priority win, an entry without one taking the one
// before it less `priority_delta`, so the catch-all written second loses
// to the first and the last, written with a priority above both, wins
// where it overlaps them; `classes` (ternary) lets the smallest win, with
// its catch-all one above the entry before it.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action to(bit<9> port) { sm.egress_spec = port; }
    action mark(bit<8> m) { hdr.eth.src[7:0] = m; }
    action classify(bit<8> c) { hdr.eth.src[15:8] = c; }
    table ports {
        key = { hdr.eth.type : exact; }
        actions = { to; }
        default_action = to(1);
        entries = {
            0x0800 : to(2);
            0x86dd : to(3);
        }
    }
    table marks {
        key = { hdr.eth.dst : ternary; }
        actions = { mark; NoAction; }
        default_action = NoAction;
        priority_delta = 5;
        entries = {
            priority = 50 : 0x000000000001 &&& 0x0000000000ff : mark(0xa);
            _ : mark(0xb);
            priority = 100 : 0x000000000101 : mark(0xc);
        }
    }
    table classes {
        key = { hdr.eth.type : ternary; }
        actions = { classify; NoAction; }
        default_action = NoAction;
        largest_priority_wins = false;
        entries = {
            priority = 10 : 0x0806 : classify(0x10);
            priority = 20 : 0x0800 &&& 0xff00 : classify(0x20);
            0x0000 &&& 0x0000 : classify(0x30);
        }
    }
    apply {
        ports.apply();
        marks.apply();
        classes.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
