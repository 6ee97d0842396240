// Action profiles and selectors on v1model, shaped to break them: a
// selector whose keys are fields of odd widths (9, 13 and 2 bits), shared
// by two tables with different keys and different action lists, and a
// plain profile on a ternary table.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

// 24 bits: a 9-bit port, a 13-bit flow label and a 2-bit class.
header flow_t {
    bit<9>  port;
    bit<13> label;
    bit<2>  class;
}

struct headers_t {
    ethernet_t eth;
    flow_t     flow;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x88b5: parse_flow;
            default: accept;
        }
    }
    state parse_flow {
        pkt.extract(hdr.flow);
        transition accept;
    }
}

control VR(inout headers_t hdr, inout meta_t meta) { apply { } }

control Ig(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action_selector(HashAlgorithm.crc16, 32w1024, 32w16) spread;
    action_profile(32w64) marks;

    action fwd(bit<9> port) { sm.egress_spec = port; }
    action set_type(bit<16> type) { hdr.eth.type = type; sm.egress_spec = 7; }
    action set_src(bit<48> src) { hdr.eth.src = src; }
    action drop_it() { mark_to_drop(sm); }

    table by_dst {
        key = {
            hdr.eth.dst      : exact;
            hdr.flow.port    : selector;
            hdr.flow.label   : selector;
            hdr.flow.class   : selector;
        }
        actions = { fwd; drop_it; NoAction; }
        implementation = spread;
        default_action = drop_it();
    }

    table by_src {
        key = {
            hdr.eth.src      : lpm;
            hdr.flow.port    : selector;
            hdr.flow.label   : selector;
            hdr.flow.class   : selector;
        }
        actions = { set_type; fwd; NoAction; }
        implementation = spread;
        default_action = NoAction();
    }

    table mark {
        key = { hdr.eth.type : ternary; }
        actions = { set_src; NoAction; }
        implementation = marks;
        default_action = NoAction();
    }

    apply {
        if (!by_dst.apply().hit) {
            by_src.apply();
        }
        mark.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CK(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.flow);
    }
}

V1Switch(P(), VR(), Ig(), Eg(), CK(), D()) main;
