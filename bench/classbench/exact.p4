// SPDX-License-Identifier: Apache-2.0
// The exact-match twin of acl.p4 (bench/classbench/README.md): the same
// 5-tuple key, every field exact, the same size and actions.
// A hit writes the rule's number into the destination MAC and sends the
// packet back (XDP_TX), so a test or benchmark reads which rule won from
// the packet; a miss passes the packet unchanged.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_h {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_h {
    bit<8>  versionIhl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<16> flagsFragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

// The first four bytes of TCP and UDP alike.
header ports_h {
    bit<16> srcPort;
    bit<16> dstPort;
}

struct acl_headers_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
    ports_h    ports;
}

parser AclParser(packet_in packet, out acl_headers_t hdr) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        packet.extract(hdr.ports);
        transition accept;
    }
}

control Acl(inout acl_headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action hit(bit<32> rule) {
        hdr.ethernet.dstAddr = (bit<48>) rule;
        omd.output_action = xdp_action.XDP_TX;
    }
    action miss() {}
    table acl {
        key = {
            hdr.ipv4.srcAddr: exact @name("src");
            hdr.ipv4.dstAddr: exact @name("dst");
            hdr.ports.srcPort: exact @name("sport");
            hdr.ports.dstPort: exact @name("dport");
            hdr.ipv4.protocol: exact @name("proto");
        }
        actions = { hit; miss; }
        const default_action = miss();
        size = 65536;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        if (hdr.ports.isValid()) {
            acl.apply();
        }
    }
}

control AclDeparser(in acl_headers_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ports);
    }
}

xdp(AclParser(), Acl(), AclDeparser()) main;
