// SPDX-License-Identifier: Apache-2.0
// Study program 1: parse Ethernet and IPv4, drop.
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

control Drop(inout eth_ipv4_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
    }
}

xdp(EthIpv4Parser(), Drop(), EthIpv4Deparser()) main;
