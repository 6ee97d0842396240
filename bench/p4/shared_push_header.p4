// SPDX-License-Identifier: Apache-2.0
// Second family, program 6: an exact lookup of the IPv4 destination (a hit)
// runs an action that pushes the 8-byte tag after Ethernet (and VLAN), then
// sends the packet back out (XDP_TX); a miss, or no IPv4, drops.
#include "shared.p4"

control Push(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action push_tag(bit<32> value) {
        hdr.tag.setValid();
        hdr.tag.magic = 0x5034;
        hdr.tag.value = value;
        if (hdr.vlan.isValid()) {
            hdr.tag.etherType = hdr.vlan.etherType;
            hdr.vlan.etherType = ETHERTYPE_TAG;
        } else {
            hdr.tag.etherType = hdr.ethernet.etherType;
            hdr.ethernet.etherType = ETHERTYPE_TAG;
        }
        omd.output_action = xdp_action.XDP_TX;
    }
    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    table tag_by_dst {
        key = { hdr.ipv4.dstAddr: exact; }
        actions = { push_tag; drop; }
        const default_action = drop();
        size = 1024;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
        if (hdr.ipv4.isValid()) {
            tag_by_dst.apply();
        }
    }
}

xdp(SharedParser(), Push(), SharedDeparser()) main;
