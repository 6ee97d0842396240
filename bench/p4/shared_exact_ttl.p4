// SPDX-License-Identifier: Apache-2.0
// Second family, program 3: an exact lookup of the IPv4 destination (a hit)
// gives a new TTL, written into the packet; drop.
#include "shared.p4"

control SetTtl(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action set_ttl(bit<8> ttl) {
        hdr.ipv4.ttl = ttl;
    }
    action nop() {}
    table ttl_by_dst {
        key = { hdr.ipv4.dstAddr: exact; }
        actions = { set_ttl; nop; }
        const default_action = nop();
        size = 1024;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
        if (hdr.ipv4.isValid()) {
            ttl_by_dst.apply();
        }
    }
}

xdp(SharedParser(), SetTtl(), SharedDeparser()) main;
