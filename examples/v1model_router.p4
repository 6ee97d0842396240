// SPDX-License-Identifier: Apache-2.0
// The P4 tutorials' IPv4 router (basic.p4) for v1model: longest-prefix
// match on the destination address gives the next hop's Ethernet address,
// the router's own address on that side and the output port; TTL is
// decremented and the IPv4 checksum recomputed in computeChecksum.
// Everything else is dropped: no route, TTL running out, frames that are
// not IPv4 (so hosts need the router's address in their neighbour table:
// `make demo EXAMPLE=v1model_router` adds it).
#include <core.p4>
#include <v1model.p4>

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<9>  port_t;

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

struct metadata_t { }

parser RouterParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
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

control RouterVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RouterIngress(inout headers_t hdr, inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    // Packets sent out of each port, summed over CPUs by `p4bpf counter get`.
    counter(512, CounterType.packets) forwarded;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    // Sends the packet to the next hop `dstAddr` out of `port` (the P4 port
    // given to `p4bpf port add --port`), from the router's `srcAddr` there.
    action ipv4_forward(mac_addr_t dstAddr, mac_addr_t srcAddr, port_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = srcAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        forwarded.count((bit<32>) port);
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; drop; }
        default_action = drop();
        size = 1024;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
    }
}

control RouterEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    apply { }
}

control RouterComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.totalLen, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control RouterDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(RouterParser(), RouterVerifyChecksum(), RouterIngress(), RouterEgress(),
         RouterComputeChecksum(), RouterDeparser()) main;
