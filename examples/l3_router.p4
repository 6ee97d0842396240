// SPDX-License-Identifier: Apache-2.0
// An IPv4 router at the XDP hook: longest-prefix match on the destination
// address picks a next hop; the next hop gives the Ethernet addresses and the
// output interface. TTL is decremented with an incremental checksum update.
// Packets that are not IPv4 (ARP among them) go to the kernel's stack, which
// keeps answering ARP; IPv4 packets without a route or whose TTL runs out
// are dropped.

#include <core.p4>
#include <xdp_model.p4>

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<16> next_hop_id_t;

const bit<16> ETHERTYPE_IPV4 = 0x0800;

header ethernet_h {
    mac_addr_t dstAddr;
    mac_addr_t srcAddr;
    bit<16>    etherType;
}

header ipv4_h {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      diffserv;
    bit<16>     totalLen;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     fragOffset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdrChecksum;
    ipv4_addr_t srcAddr;
    ipv4_addr_t dstAddr;
}

struct headers_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
}

parser RouterParser(packet_in packet, out headers_t hdr) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control RouterIngress(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    next_hop_id_t next_hop = 0;
    // Packets sent to each next hop, summed over CPUs by
    // `p4bpf counter get`.
    CounterArray(32w256, false) forwarded;

    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }

    action set_next_hop(next_hop_id_t id) {
        next_hop = id;
    }

    // Rewrites the Ethernet addresses for the next hop and sends the packet
    // out of P4 port `port` (as given to `p4bpf port add --port`).
    action forward(mac_addr_t dst_mac, mac_addr_t src_mac, bit<32> port) {
        hdr.ethernet.dstAddr = dst_mac;
        hdr.ethernet.srcAddr = src_mac;
        omd.output_port = port;
        omd.output_action = xdp_action.XDP_REDIRECT;
    }

    table ipv4_routes {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { set_next_hop; drop; }
        default_action = drop();
        size = 1024;
    }

    table next_hops {
        key = { next_hop: exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 256;
    }

    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        if (!hdr.ipv4.isValid()) {
            return;
        }
        if (hdr.ipv4.ttl <= 1) {
            drop();
            return;
        }
        if (!ipv4_routes.apply().hit) {
            return;
        }
        if (!next_hops.apply().hit) {
            return;
        }
        // The checksum covers TTL and protocol as one 16-bit word.
        bit<16> old_word = hdr.ipv4.ttl ++ hdr.ipv4.protocol;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        bit<16> new_word = hdr.ipv4.ttl ++ hdr.ipv4.protocol;
        hdr.ipv4.hdrChecksum = csum_replace2(hdr.ipv4.hdrChecksum, old_word, new_word);
        forwarded.increment((bit<32>)next_hop);
    }
}

control RouterDeparser(in headers_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

xdp(RouterParser(), RouterIngress(), RouterDeparser()) main;
