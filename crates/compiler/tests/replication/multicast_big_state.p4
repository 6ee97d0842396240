// Multicast with a per-packet state too big for the stack (it lives in
// the per-CPU scratch map): each copy's state is copied from there into
// the mailbox. Groups come from a table, so the group is a run-time value.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header wide_t { bit<64> a; bit<64> b; bit<64> c; bit<64> d; bit<64> e; bit<64> f; bit<64> g; bit<64> h; }
struct headers_t { eth_t eth; wide_t w1; wide_t w2; wide_t w3; wide_t w4; wide_t w5; }
struct meta_t { bit<64> m1; bit<64> m2; bit<64> m3; bit<64> m4; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.w1); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action flood(bit<16> group) { sm.mcast_grp = group; meta.m1 = hdr.w1.a; }
    action forward(bit<9> port) { sm.egress_spec = port; }
    table dmac {
        key = { hdr.eth.dst: exact; }
        actions = { flood; forward; NoAction; }
        default_action = flood(1);
    }
    apply { dmac.apply(); }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.w1.b = meta.m1 + (bit<64>)sm.egress_rid;
        if (sm.egress_port == sm.ingress_port) {
            mark_to_drop(sm);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.w1); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
