// Copies at XDP on the user target as in the kernel (v1model): ingress
// multicasts to the tag's group or clones I2E to the tag's session; egress
// changes each copy by its replica: it writes the copy's replica id, port
// and instance type into the tag, grows replica 2's copies by a trailer
// header, rewrites replica 3's destination, and drops replica 9's.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<8> op;
    bit<16> group;
    bit<8> session;
    bit<16> rid;
    bit<8> port;
    bit<8> instance;
}

header trailer_t {
    bit<16> mark;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
    trailer_t trailer;
}

struct meta_t {}

parser Parse(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t meta) {
    apply {}
}

control In(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.tag.op == 1) {
            sm.mcast_grp = hdr.tag.group;
        } else if (hdr.tag.op == 2) {
            clone(CloneType.I2E, (bit<32>) hdr.tag.session);
        }
        hdr.tag.op = hdr.tag.op | 0x80;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.tag.rid = sm.egress_rid;
        hdr.tag.port = (bit<8>) sm.egress_port;
        hdr.tag.instance = (bit<8>) sm.instance_type;
        if (sm.egress_rid == 2) {
            hdr.trailer.setValid();
            hdr.trailer.mark = 0xbeef;
        } else if (sm.egress_rid == 3) {
            hdr.ethernet.dst = 0x0000000000aa;
        } else if (sm.egress_rid == 9) {
            mark_to_drop(sm);
        }
    }
}

control Deparse(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.trailer);
    }
}

V1Switch(Parse(), NoCheck(), In(), Eg(), NoCheck(), Deparse()) main;
