// xdp_model: a table on the IPv4 destination that sends the packet back
// (XDP_TX, MACs swapped), removes a header (the VLAN tag), inserts one, or
// drops; what matches nothing passes to the stack.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header vlan_t {
    bit<16> tci;
    bit<16> ether_type;
}

header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<32> id_flags_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}

struct headers_t {
    ethernet_t eth;
    vlan_t     vlan;
    ipv4_t     ipv4;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x8100: vlan;
            0x0800: ipv4;
            default: accept;
        }
    }
    state vlan {
        p.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action bounce() {
        bit<48> tmp = hdr.eth.dst;
        hdr.eth.dst = hdr.eth.src;
        hdr.eth.src = tmp;
        omd.output_action = xdp_action.XDP_TX;
    }
    action untag() {
        hdr.eth.ether_type = hdr.vlan.ether_type;
        hdr.vlan.setInvalid();
        omd.output_action = xdp_action.XDP_PASS;
    }
    action tag(bit<16> tci) {
        hdr.vlan.setValid();
        hdr.vlan.tci = tci;
        hdr.vlan.ether_type = hdr.eth.ether_type;
        hdr.eth.ether_type = 0x8100;
        omd.output_action = xdp_action.XDP_PASS;
    }
    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    table route {
        key = { hdr.ipv4.dst : exact; }
        actions = { bounce; untag; tag; drop; }
        default_action = drop();
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        if (hdr.ipv4.isValid()) {
            route.apply();
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.vlan);
        p.emit(hdr.ipv4);
    }
}

xdp(prs(), sw(), dprs()) main;
