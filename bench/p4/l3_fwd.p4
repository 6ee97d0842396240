// SPDX-License-Identifier: Apache-2.0
// L3 forwarding for the live-frame benchmark: longest-prefix match on the
// IPv4 destination gives the next hop's MACs and output port; TTL is
// decremented with an incremental checksum update; the packet is
// redirected (XDP_REDIRECT). No route: drop. There is no TTL-expiry check:
// live-frame test runs recycle pages without restoring their bytes, so a
// check would start dropping every frame after 63 reuses of a page and the
// figure would time the drop path (the twin does the same).
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

control Forward(inout eth_ipv4_t hdr, in xdp_input imd, out xdp_output omd) {
    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    action forward(bit<48> dmac, bit<48> smac, bit<32> port) {
        hdr.ethernet.dstAddr = dmac;
        hdr.ethernet.srcAddr = smac;
        omd.output_port = port;
        omd.output_action = xdp_action.XDP_REDIRECT;
    }
    table routes {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { forward; drop; }
        default_action = drop();
        size = 1024;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
        if (!hdr.ipv4.isValid()) {
            return;
        }
        routes.apply();
        if (omd.output_action == xdp_action.XDP_REDIRECT) {
            bit<16> old_word = hdr.ipv4.ttl ++ hdr.ipv4.protocol;
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            hdr.ipv4.hdrChecksum = csum_replace2(hdr.ipv4.hdrChecksum, old_word, hdr.ipv4.ttl ++ hdr.ipv4.protocol);
        }
    }
}

xdp(EthIpv4Parser(), Forward(), EthIpv4Deparser()) main;
