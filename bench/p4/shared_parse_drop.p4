// SPDX-License-Identifier: Apache-2.0
// Second family, program 1: the shared parser, drop.
#include "shared.p4"

control Drop(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
    }
}

xdp(SharedParser(), Drop(), SharedDeparser()) main;
