// SPDX-License-Identifier: Apache-2.0
// Study program 4: parse Ethernet, IPv4 and UDP; write a fixed source port
// and source address; update the IPv4 and UDP checksums; drop.
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

struct eth_ipv4_udp_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
    udp_h      udp;
}

parser UdpParser(packet_in packet, out eth_ipv4_udp_t hdr) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        packet.extract(hdr.udp);
        transition accept;
    }
}

control Rewrite(inout eth_ipv4_udp_t hdr, in xdp_input imd, out xdp_output omd) {
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

control UdpDeparser(in eth_ipv4_udp_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.udp);
    }
}

xdp(UdpParser(), Rewrite(), UdpDeparser()) main;
