// xdp_model: a table whose action branches (pop a VLAN tag when there is
// one) beside one that does not; the dispatch keeps the branching action
// behind a compiler barrier, so clang emits one test of the action code.
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

header vlan_t {
    bit<16> tci;
    bit<16> ether_type;
}

struct vlan_headers_t {
    ethernet_t eth;
    vlan_t     vlan;
    ipv4_t     ipv4;
}

parser prs(packet_in p, out vlan_headers_t hdr) {
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

control sw(inout vlan_headers_t hdr, in xdp_input in_md, out xdp_output out_md) {
    action pop_vlan() {
        if (hdr.vlan.isValid()) {
            hdr.eth.ether_type = hdr.vlan.ether_type;
            hdr.vlan.setInvalid();
        }
        out_md.output_action = xdp_action.XDP_TX;
    }
    action drop() {
        out_md.output_action = xdp_action.XDP_DROP;
    }
    table untag {
        key = { hdr.ipv4.dst: exact; }
        actions = { pop_vlan; drop; }
        const default_action = drop();
    }
    apply {
        out_md.output_port = 0;
        out_md.output_action = xdp_action.XDP_DROP;
        if (hdr.ipv4.isValid()) {
            untag.apply();
        }
    }
}

control dprs(in vlan_headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.vlan);
        p.emit(hdr.ipv4);
    }
}

xdp(prs(), sw(), dprs()) main;
