// SPDX-License-Identifier: Apache-2.0
// Study program 5: parse, swap the Ethernet addresses, send the packet back
// out (XDP_TX).
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

control Swap(inout eth_ipv4_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        bit<48> dst = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = hdr.ethernet.srcAddr;
        hdr.ethernet.srcAddr = dst;
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_TX;
    }
}

xdp(EthIpv4Parser(), Swap(), EthIpv4Deparser()) main;
