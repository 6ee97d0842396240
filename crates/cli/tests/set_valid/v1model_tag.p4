// The v1model twin of psa_tag.p4: setValid() on an invalid header
// starts its fields at zero; on a valid one it keeps them.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<32> value;
    bit<8> kind;
}

// Never valid: it makes the state too big for the stack, so the state
// lives in the per-CPU map that one packet leaves to the next.
header pad_t {
    bit<1024> a;
    bit<1024> b;
    bit<1024> c;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
    pad_t pad;
}

struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x1234: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout meta_t meta,
            inout standard_metadata_t sm) {
    apply {
        if (hdr.tag.isValid()) {
            // Read and written: the tag's fields are in the state now.
            hdr.tag.value = hdr.tag.value + 1;
            hdr.tag.kind = hdr.tag.kind + 1;
        } else {
            hdr.tag.setValid();
            hdr.ethernet.ether_type = 0x1234;
        }
        hdr.tag.setValid();
        sm.egress_spec = 2;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    apply { }
}

control Dep(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.pad);
    }
}

V1Switch(P(), NoCheck(), Ing(), Eg(), NoCheck(), Dep()) main;
