// Emits inside a switch and an if in the deparser: the new packet length
// counts exactly the headers the taken branches emit.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<16> magic; bit<16> ether_type; }
header ipv4_t {
    bit<8> version_ihl; bit<8> tos; bit<16> total_len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}

struct headers_t {
    ethernet_t eth;
    tag_t      tag;
    ipv4_t     ipv4;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 { p.extract(hdr.ipv4); transition accept; }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        if (hdr.ipv4.isValid()) {
            hdr.tag.setValid();
            hdr.tag.magic = 0x5034;
            hdr.tag.ether_type = 0x0800;
            hdr.eth.ether_type = 0x88b5;
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        switch (hdr.eth.ether_type) {
            0x88b5: { p.emit(hdr.tag); }
            default: { }
        }
        // TTL 1: the IPv4 header is left out.
        if (hdr.ipv4.ttl != 1) {
            p.emit(hdr.ipv4);
        }
    }
}

xdp(prs(), sw(), dprs()) main;
