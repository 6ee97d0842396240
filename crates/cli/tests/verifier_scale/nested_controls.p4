// Controls three deep, each applying a table keyed on its parameters and
// passing `hdr` and `meta` down, with a 32-element stack in the headers
// (state over 1 KiB, so a clone's copy of it goes word by word) and an
// I2E clone: the shape of switch_p4_16, whose copies of `hdr` and `meta`
// per nested control made 7.6 MB of C that clang did not finish.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<32> a; bit<32> b; bit<32> c; bit<32> d; bit<64> e; bit<64> f; bit<16> next; }
struct headers_t { eth_t eth; tag_t[32] tags; }
struct meta_t {
    @field_list(1) bit<16> l1;
    bit<16> l2;
    bit<16> l3;
    bit<9> port;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x1234: tag; default: accept; }
    }
    state tag {
        pkt.extract(hdr.tags.next);
        transition select(hdr.tags.last.next) { 0: accept; default: tag; }
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control Leaf0(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<16> v, bit<9> port) { m.l3 = m.l3 + v; sm.egress_spec = port; }
    action mirror() { clone_preserving_field_list(CloneType.I2E, 1, 1); }
    table t {
        key = { h.eth.dst : exact; m.l2 : exact; h.tags[0].a : ternary; }
        actions = { set; mirror; NoAction; }
        default_action = NoAction();
    }
    apply { if (h.tags[0].isValid()) { t.apply(); } }
}

control Mid0(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Leaf0() leaf;
    action step(bit<16> v) { m.l2 = v; }
    table t {
        key = { h.eth.src : exact; m.l1 : exact; }
        actions = { step; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); leaf.apply(h, m, sm); }
}

control Leaf1(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<16> v, bit<9> port) { m.l3 = m.l3 + v; sm.egress_spec = port; }
    action mirror() { clone_preserving_field_list(CloneType.I2E, 2, 1); }
    table t {
        key = { h.eth.dst : exact; m.l2 : exact; h.tags[1].a : ternary; }
        actions = { set; mirror; NoAction; }
        default_action = NoAction();
    }
    apply { if (h.tags[1].isValid()) { t.apply(); } }
}

control Mid1(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Leaf1() leaf;
    action step(bit<16> v) { m.l2 = v; }
    table t {
        key = { h.eth.src : exact; m.l1 : exact; }
        actions = { step; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); leaf.apply(h, m, sm); }
}

control Leaf2(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<16> v, bit<9> port) { m.l3 = m.l3 + v; sm.egress_spec = port; }
    action mirror() { clone_preserving_field_list(CloneType.I2E, 3, 1); }
    table t {
        key = { h.eth.dst : exact; m.l2 : exact; h.tags[2].a : ternary; }
        actions = { set; mirror; NoAction; }
        default_action = NoAction();
    }
    apply { if (h.tags[2].isValid()) { t.apply(); } }
}

control Mid2(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Leaf2() leaf;
    action step(bit<16> v) { m.l2 = v; }
    table t {
        key = { h.eth.src : exact; m.l1 : exact; }
        actions = { step; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); leaf.apply(h, m, sm); }
}

control Leaf3(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<16> v, bit<9> port) { m.l3 = m.l3 + v; sm.egress_spec = port; }
    action mirror() { clone_preserving_field_list(CloneType.I2E, 4, 1); }
    table t {
        key = { h.eth.dst : exact; m.l2 : exact; h.tags[3].a : ternary; }
        actions = { set; mirror; NoAction; }
        default_action = NoAction();
    }
    apply { if (h.tags[3].isValid()) { t.apply(); } }
}

control Mid3(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Leaf3() leaf;
    action step(bit<16> v) { m.l2 = v; }
    table t {
        key = { h.eth.src : exact; m.l1 : exact; }
        actions = { step; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); leaf.apply(h, m, sm); }
}

control Top(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Mid0() mid0; Mid1() mid1; Mid2() mid2; Mid3() mid3;
    apply {
        m.l1 = h.eth.type;
        mid0.apply(h, m, sm);
        mid1.apply(h, m, sm);
        if (m.l3 != 0) { mid2.apply(h, m, sm); }
        mid3.apply(h, m, sm);
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Top() top;
    apply { top.apply(hdr, meta, sm); }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { if (sm.instance_type == 1) { hdr.eth.type = meta.l1; } }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tags); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
