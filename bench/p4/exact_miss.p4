// SPDX-License-Identifier: Apache-2.0
// Study program 2: parse, look the destination MAC up in an exact table (the
// benchmark leaves it empty: a miss), drop.
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

control MacLookup(inout eth_ipv4_t hdr, in xdp_input imd, out xdp_output omd) {
    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    action pass() {
        omd.output_action = xdp_action.XDP_PASS;
    }
    table dmac {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { pass; drop; }
        const default_action = drop();
        size = 1024;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
        dmac.apply();
    }
}

xdp(EthIpv4Parser(), MacLookup(), EthIpv4Deparser()) main;
