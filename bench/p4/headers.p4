// SPDX-License-Identifier: Apache-2.0
// Headers shared by the benchmark programs (bench/README.md lists them).
#ifndef BENCH_HEADERS_P4
#define BENCH_HEADERS_P4

header ethernet_h {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_h {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  PROTO_UDP = 17;

struct eth_ipv4_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
}

// Ethernet, then IPv4 when the EtherType says so.
parser EthIpv4Parser(packet_in packet, out eth_ipv4_t hdr) {
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

control EthIpv4Deparser(in eth_ipv4_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

#endif
