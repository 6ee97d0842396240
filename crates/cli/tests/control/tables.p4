// Tables of every match kind, a full-able small table, a large exact table
// (the batch insertion benchmark) and a counter, for the control-plane
// tests (crates/cli/tests/control_plane.rs).
#include <core.p4>
#include <xdp_model.p4>

header ethernet_h {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t {
    ethernet_h ethernet;
}

parser TestParser(packet_in packet, out headers_t hdr) {
    state start {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control TestIngress(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    CounterArray(32w16, false) seen;

    action forward(bit<32> port) {
        omd.output_port = port;
        omd.output_action = xdp_action.XDP_TX;
    }

    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }

    table by_dst {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 131072;
    }

    table by_type {
        key = { hdr.ethernet.etherType: exact; }
        actions = { forward; drop; }
        size = 2;
    }

    table by_src {
        key = { hdr.ethernet.srcAddr: ternary; }
        actions = { forward; drop; }
        size = 64;
    }

    table by_prefix {
        key = { hdr.ethernet.srcAddr: lpm; }
        actions = { forward; drop; }
        size = 64;
    }

    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        seen.increment(32w1);
        by_dst.apply();
        by_type.apply();
        by_src.apply();
        by_prefix.apply();
    }
}

control TestDeparser(in headers_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
    }
}

xdp(TestParser(), TestIngress(), TestDeparser()) main;
