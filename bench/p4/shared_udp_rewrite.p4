// SPDX-License-Identifier: Apache-2.0
// Second family, program 4: a fixed UDP source port and IPv4 source, both
// checksums updated; drop.
#include "shared.p4"

control Rewrite(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_DROP;
        if (hdr.udp.isValid()) {
            bit<32> new_src = 0x0a000001;
            bit<16> new_port = 4000;
            hdr.ipv4.hdrChecksum = csum_replace4(hdr.ipv4.hdrChecksum, hdr.ipv4.srcAddr, new_src);
            // The UDP checksum covers the pseudo-header's source address too.
            if (hdr.udp.checksum != 0) {
                bit<16> c = csum_replace4(hdr.udp.checksum, hdr.ipv4.srcAddr, new_src);
                hdr.udp.checksum = csum_replace2(c, hdr.udp.srcPort, new_port);
            }
            hdr.ipv4.srcAddr = new_src;
            hdr.udp.srcPort = new_port;
        }
    }
}

xdp(SharedParser(), Rewrite(), SharedDeparser()) main;
