// Sends a VLAN-tagged frame out of the port its VLAN id names, tag and
// all; an untagged frame out of port 1. On a live port at TC the kernel
// has taken the tag out of the packet before the program runs: the
// program must find it in place all the same.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header vlan_t {
    bit<3> pcp;
    bit<1> dei;
    bit<12> vid;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
    vlan_t vlan;
}

struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x8100: parse_vlan;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout meta_t meta,
            inout standard_metadata_t sm) {
    apply {
        if (hdr.vlan.isValid()) {
            sm.egress_spec = (bit<9>) hdr.vlan.vid;
        } else {
            sm.egress_spec = 1;
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    apply { }
}

control Dep(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
    }
}

V1Switch(P(), NoCheck(), Ing(), Eg(), NoCheck(), Dep()) main;
