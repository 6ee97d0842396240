// SPDX-License-Identifier: Apache-2.0
// Study program 3: parse, exact lookup of the destination IPv4 address that
// yields a new TTL, write it into the packet, drop.
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

control SetTtl(inout eth_ipv4_t hdr, in xdp_input imd, out xdp_output omd) {
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

xdp(EthIpv4Parser(), SetTtl(), EthIpv4Deparser()) main;
