// SPDX-License-Identifier: Apache-2.0
// The v1model router (examples/v1model_router.p4, the P4 tutorials'
// basic.p4) for the live-frame benchmark, beside xdp_model's l3_fwd:
// longest-prefix match on the IPv4 destination gives the next hop's MACs
// and the output port, TTL is decremented and the checksum recomputed in
// computeChecksum, as the tutorial does. No route: drop. Like l3_fwd, no
// TTL-expiry check: live-frame runs recycle pages without restoring their
// bytes (twin: c/l3_fwd.c, the same work with an incremental checksum).
#include <core.p4>
#include <v1model.p4>

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

struct headers_t {
    ethernet_h ethernet;
    ipv4_h ipv4;
}

struct meta_t { }

parser EthIpv4(packet_in p, out headers_t hdr, inout meta_t meta,
               inout standard_metadata_t sm) {
    state start {
        p.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        p.extract(hdr.ipv4);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Forward(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() {
        mark_to_drop(sm);
    }
    action forward(bit<48> dmac, bit<48> smac, bit<9> port) {
        hdr.ethernet.dstAddr = dmac;
        hdr.ethernet.srcAddr = smac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        sm.egress_spec = port;
    }
    table routes {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { forward; drop; }
        default_action = drop();
        size = 1024;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            routes.apply();
        } else {
            drop();
        }
    }
}

control NoEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control Checksum(inout headers_t hdr, inout meta_t meta) {
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

control EthIpv4Deparser(packet_out p, in headers_t hdr) {
    apply {
        p.emit(hdr.ethernet);
        p.emit(hdr.ipv4);
    }
}

V1Switch(EthIpv4(), NoVerify(), Forward(), NoEgress(), Checksum(), EthIpv4Deparser()) main;
