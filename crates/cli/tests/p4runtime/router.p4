// The P4Runtime tests' program (crates/cli/tests/p4runtime.rs): an exact,
// an lpm and a ternary table with a priority, and a packet counter.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_h {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_h {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<16> id;
    bit<16> frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct headers_t {
    ethernet_h ethernet;
    ipv4_h ipv4;
}

parser RouterParser(packet_in packet, out headers_t hdr) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control RouterIngress(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    CounterArray(32w8, false) arrivals;

    action send(bit<32> port) {
        omd.output_port = port;
        omd.output_action = xdp_action.XDP_TX;
    }

    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }

    table stations {
        key = { hdr.ethernet.dst: exact; }
        actions = { send; drop; NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    table routes {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { send; drop; NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    table acl {
        key = {
            hdr.ipv4.src_addr: ternary;
            hdr.ipv4.protocol: exact;
        }
        actions = { drop; NoAction; }
        default_action = NoAction();
        size = 64;
    }

    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        arrivals.increment(32w0);
        stations.apply();
        if (hdr.ipv4.isValid()) {
            routes.apply();
            acl.apply();
        }
    }
}

control RouterDeparser(in headers_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

xdp(RouterParser(), RouterIngress(), RouterDeparser()) main;
