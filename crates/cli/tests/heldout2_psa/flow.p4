// Control flow the spec defines but programs seldom write: a switch on a
// bit field (labels that fall through to the next block, an empty block,
// default); `exit` in an action of a table applied by a control two
// levels down (it ends the whole ingress control, P4_16 12.5); `return`
// in an action (it ends only the action, P4_16 12.4) and in a
// sub-control (it ends only that control); a switch on action_run with
// default; in egress, exit inside a sub-control after a drop, and an
// action that can exit, after an ingress that did.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// op, sel: what the packet asks for; r1..r5: what the controls did.
header data_t {
    bit<8> op;
    bit<8> sel;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
    bit<8> r4;
    bit<8> r5;
}

struct headers_t {
    ethernet_t ethernet;
    data_t data;
}

struct meta_t {}
struct empty_t {}

control Inner(inout data_t d) {
    action stop_all() {
        d.r3 = 0xe1;
        exit;
    }
    action mark(bit<8> v) {
        d.r3 = v;
    }
    // `return` leaves the action, not the control that applied it.
    action early(bit<8> v) {
        d.r3 = v;
        if (v == 0x55) {
            return;
        }
        d.r3 = v + 1;
    }
    table pick {
        key = { d.sel: exact; }
        actions = { stop_all; mark; early; }
        const entries = {
            1: stop_all();
            2: mark(0x22);
            4: early(0x55);
            5: early(0x60);
        }
        default_action = mark(0x33);
    }
    apply {
        if (d.sel == 3) {
            d.r3 = 0x44;
            return;
        }
        switch (pick.apply().action_run) {
            stop_all: { d.r4 = 0xbb; }
            early: { d.r4 = 0xea; }
            default: { d.r4 = 0xdf; }
        }
    }
}

control Middle(inout data_t d) {
    Inner() inner;
    apply {
        d.r2 = 0x01;
        inner.apply(d);
        d.r2 = d.r2 + 1;
    }
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.data);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Middle() middle;
    apply {
        send_to_port(ostd, (PortId_t) 2);
        switch (hdr.data.op) {
            0: { hdr.data.r1 = 0x10; }
            1:
            2: { hdr.data.r1 = 0x12; }
            7: { }
            default: { hdr.data.r1 = 0xdf; }
        }
        middle.apply(hdr.data);
        hdr.data.r5 = 0x5a;
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.data);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.data);
        transition accept;
    }
}

// Drops and exits from a sub-control: the egress deparser still runs,
// but the packet stays dropped.
control EgDrop(inout data_t d, inout psa_egress_output_metadata_t ostd) {
    apply {
        if (d.op == 0xdd) {
            ostd.drop = true;
            exit;
        }
        d.r5 = d.r5 | 0x01;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    EgDrop() eg_drop;
    // An action that can exit but seldom does: after ingress exited, it
    // must still go on when it does not.
    action eg_mark(bit<8> v) {
        if (v == 0xff) {
            exit;
        }
        hdr.data.r5 = hdr.data.r5 | v;
    }
    table eg_by_op {
        key = { hdr.data.op: exact; }
        actions = { eg_mark; }
        const entries = { 0xee: eg_mark(0xff); }
        default_action = eg_mark(0x04);
    }
    apply {
        eg_drop.apply(hdr.data, ostd);
        eg_by_op.apply();
        hdr.data.r5 = hdr.data.r5 | 0x80;
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.data);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
