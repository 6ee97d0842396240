// SPDX-License-Identifier: Apache-2.0
// Second family, program 2: look the destination MAC up in an exact table
// (left empty: a miss); the default drops, a hit would forward.
#include "shared.p4"

control MacLookup(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    action forward(bit<32> port) {
        omd.output_port = port;
        omd.output_action = xdp_action.XDP_REDIRECT;
    }
    table dmac {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { forward; drop; }
        const default_action = drop();
        size = 1024;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
        dmac.apply();
    }
}

xdp(SharedParser(), MacLookup(), SharedDeparser()) main;
