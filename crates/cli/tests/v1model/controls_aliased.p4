// Controls applied once whose inout parameters name their arguments
// instead of copying them (midend::alias), and the calls that must keep
// their copies: nested controls with a table keyed on a parameter and an
// action writing one; a stack element at a constant index as the
// argument; one control given `hdr` and `hdr.op` (copy-out order decides);
// an `in` snapshot beside an inout of the same header; a control applied
// twice.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> a; bit<8> b; bit<8> len; }
struct headers_t { eth_t eth; op_t op; op_t[2] ops; }
struct meta_t { bit<8> seen; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.op);
        pkt.extract(hdr.ops.next);
        pkt.extract(hdr.ops.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

// A table keyed on the parameter; its action writes the parameter.
control Inner(inout headers_t h, inout meta_t m) {
    action mark(bit<8> v) { h.op.len = v; m.seen = m.seen + 1; }
    table by_op {
        key = { h.op.op : exact; }
        actions = { mark; NoAction; }
        const entries = { 1 : mark(0x11); }
        default_action = NoAction();
    }
    apply { by_op.apply(); }
}

control Outer(inout headers_t h, inout meta_t m) {
    Inner() inner;
    apply {
        inner.apply(h, m);
        if (m.seen == 1) { h.eth.type = 0x0800; }
    }
}

control Element(inout op_t e) {
    apply { e.b = e.a + 1; }
}

// Given hdr and hdr.op: hdr is copied out first, then o over hdr.op.
control Both(inout headers_t h, inout op_t o) {
    apply { o.a = 1; h.op.a = 2; }
}

// Given a snapshot of hdr.op and hdr itself.
control Snapshot(in op_t before, inout headers_t h) {
    apply { h.op.a = 9; h.op.b = before.a; }
}

control Bump(inout bit<8> x) {
    apply { x = x + 1; }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Outer() outer;
    Element() element;
    Both() both;
    Snapshot() snapshot;
    Bump() bump;
    apply {
        sm.egress_spec = 1;
        if (hdr.op.op == 1) {
            outer.apply(hdr, meta);
        } else if (hdr.op.op == 2) {
            element.apply(hdr.ops[1]);
        } else if (hdr.op.op == 3) {
            both.apply(hdr, hdr.op);
        } else if (hdr.op.op == 4) {
            snapshot.apply(hdr.op, hdr);
        } else if (hdr.op.op == 5) {
            bump.apply(hdr.op.len);
            bump.apply(hdr.op.len);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); pkt.emit(hdr.ops); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
