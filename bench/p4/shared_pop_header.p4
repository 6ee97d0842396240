// SPDX-License-Identifier: Apache-2.0
// Second family, program 7: an exact lookup of the IPv4 destination (a hit)
// runs an action that pops the VLAN tag when there is one, then sends the
// packet back out (XDP_TX); a miss, or no IPv4, drops.
#include "shared.p4"

control Pop(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action pop_vlan() {
        if (hdr.vlan.isValid()) {
            hdr.ethernet.etherType = hdr.vlan.etherType;
            hdr.vlan.setInvalid();
        }
        omd.output_action = xdp_action.XDP_TX;
    }
    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    table untag_by_dst {
        key = { hdr.ipv4.dstAddr: exact; }
        actions = { pop_vlan; drop; }
        const default_action = drop();
        size = 1024;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
        if (hdr.ipv4.isValid()) {
            untag_by_dst.apply();
        }
    }
}

xdp(SharedParser(), Pop(), SharedDeparser()) main;
