// Controls applied from controls: two instances of one type with
// different constructor arguments (each with its own table), a control
// applied twice by its type name (its locals start afresh each time),
// a control applied by type name that holds an instance of its own, one
// with a default argument left out and given by name, a control passed
// to another as a constructor argument of a control type, and a table
// keyed on a constant (and named with characters outside ASCII, which the
// pipeline description must carry as UTF-8).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> a; bit<8> b; bit<8> len; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.op);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

// Adds `step` to x when x is 1 or 2.
control Mark(inout bit<8> x)(bit<8> step) {
    action add() { x = x + step; }
    table t {
        key = { x : exact; }
        actions = { add; NoAction; }
        const entries = {
            1 : add();
            2 : add();
        }
        default_action = NoAction();
    }
    apply { t.apply(); }
}

control Bump(inout bit<8> x) {
    bit<8> by = 1;
    apply {
        x = x + by;
        by = by + 5;
    }
}

control Fill(inout bit<8> x, in bit<8> with_value = 8w0x20) {
    apply {
        if (x == 0) {
            x = with_value;
        }
    }
}

control Step(inout bit<8> x);

control Twice(inout bit<8> x)(Step step) {
    apply {
        step.apply(x);
        step.apply(x);
    }
}

control Outer(inout op_t op) {
    Mark(8w50) m;
    apply { m.apply(op.op); }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Mark(8w10) by10;
    Mark(8w3) by3;
    Bump() bump;
    Twice(bump) twice;
    action set_len(bit<8> v) { hdr.op.len = v; }
    @name("constant_key_◕‿◕")
    table constant_key {
        key = {
            8w0x48 : exact;
            hdr.op.op : exact;
        }
        actions = { set_len; NoAction; }
        const entries = {
            (0x48, 9) : set_len(0x99);
            (0x47, 8) : set_len(0x88);
        }
        default_action = NoAction();
    }
    apply {
        by10.apply(hdr.op.a);
        by3.apply(hdr.op.b);
        Bump.apply(hdr.op.len);
        Bump.apply(hdr.op.len);
        Fill.apply(hdr.op.b);
        Fill.apply(with_value = 8w0x30, x = hdr.op.a);
        Outer.apply(hdr.op);
        constant_key.apply();
        twice.apply(hdr.eth.src[7:0]);
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
