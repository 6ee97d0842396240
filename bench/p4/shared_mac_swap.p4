// SPDX-License-Identifier: Apache-2.0
// Second family, program 5: swap the Ethernet addresses, send the packet
// back out (XDP_TX).
#include "shared.p4"

control Swap(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        bit<48> dst = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = hdr.ethernet.srcAddr;
        hdr.ethernet.srcAddr = dst;
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_TX;
    }
}

xdp(SharedParser(), Swap(), SharedDeparser()) main;
