// xdp_model: inserting and removing a header (the deparser resizes the packet).
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

header tag_t {
    bit<16> value;
    bit<16> ether_type;
}

struct tagged_t {
    ethernet_t eth;
    tag_t      tag;
    ipv4_t     ipv4;
}

parser prs(packet_in p, out tagged_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x88b5: tagged;
            0x0800: ipv4;
            default: accept;
        }
    }
    state tagged {
        p.extract(hdr.tag);
        transition select(hdr.tag.ether_type) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition accept;
    }
}

control sw(inout tagged_t hdr, in xdp_input in_md, out xdp_output out_md) {
    apply {
        out_md.output_port = 0;
        out_md.output_action = xdp_action.XDP_PASS;
        if (hdr.tag.isValid()) {
            // Remove the tag.
            hdr.eth.ether_type = hdr.tag.ether_type;
            hdr.tag.setInvalid();
        } else if (hdr.ipv4.isValid()) {
            // Add a tag carrying the TTL.
            hdr.tag.setValid();
            hdr.tag.value = (bit<16>) hdr.ipv4.ttl;
            hdr.tag.ether_type = hdr.eth.ether_type;
            hdr.eth.ether_type = 0x88b5;
        }
    }
}

control dep(in tagged_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.tag);
        p.emit(hdr.ipv4);
    }
}

xdp(prs(), sw(), dep()) main;
