// Keys of a narrow signed type (int<4>) match as the control plane and
// the program's constants write them, whatever its C holder holds: an
// entry added at run time, constant entries with a negative key, a
// ternary entry and a parser select case on a negative value.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { int<4> n; bit<4> pad; bit<8> exact_hit; bit<8> const_hit; bit<8> ternary_hit; bit<8> selected; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> selected; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.op);
        transition select(hdr.op.n) {
            -1: minus_one;
            default: accept;
        }
    }
    state minus_one { meta.selected = 1; transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action exact_mark(bit<8> v) { hdr.op.exact_hit = v; }
    action const_mark(bit<8> v) { hdr.op.const_hit = v; }
    action ternary_mark(bit<8> v) { hdr.op.ternary_hit = v; }
    table by_entry {
        key = { hdr.op.n : exact; }
        actions = { exact_mark; NoAction; }
        default_action = NoAction;
    }
    table by_const {
        key = { hdr.op.n : exact; }
        actions = { const_mark; NoAction; }
        default_action = NoAction;
        const entries = { -1 : const_mark(1); -8 : const_mark(8); 3 : const_mark(3); }
    }
    table by_ternary {
        key = { hdr.op.n : ternary; }
        actions = { ternary_mark; NoAction; }
        default_action = NoAction;
    }
    apply {
        by_entry.apply();
        by_const.apply();
        by_ternary.apply();
        hdr.op.selected = meta.selected;
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
