// Deparser paths: an optional VLAN tag, an MPLS stack of up to two labels
// and a tag only an action adds, all emitted by one deparser. Actions pop
// and push in one action, pop a header that may be invalid, and shift the
// stack; each packet's bytes say whether every parser path was rebuilt
// right.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header vlan_t { bit<16> tci; bit<16> ether_type; }
header tag_t { bit<16> magic; bit<16> ether_type; }
header mpls_t { bit<20> label; bit<3> tc; bit<1> bos; bit<8> ttl; }
header ipv4_t {
    bit<8> version_ihl; bit<8> tos; bit<16> total_len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}

struct headers_t {
    ethernet_t eth;
    vlan_t     vlan;
    tag_t      tag;
    mpls_t[2]  mpls;
    ipv4_t     ipv4;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x8100: vlan;
            0x8847: mpls;
            0x0800: ipv4;
            default: accept;
        }
    }
    state vlan {
        p.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            0x8847: mpls;
            0x0800: ipv4;
            default: accept;
        }
    }
    state mpls {
        p.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: mpls;
            1: ipv4;
        }
    }
    state ipv4 { p.extract(hdr.ipv4); transition accept; }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    // Pops the VLAN tag (when there is one) and pushes the tag in its place.
    action swap_vlan_for_tag(bit<16> magic) {
        if (hdr.vlan.isValid()) {
            hdr.tag.ether_type = hdr.vlan.ether_type;
        } else {
            hdr.tag.ether_type = hdr.eth.ether_type;
        }
        hdr.vlan.setInvalid();
        hdr.tag.setValid();
        hdr.tag.magic = magic;
        hdr.eth.ether_type = 0x88b5;
    }
    // Pops the VLAN tag, which may not be there.
    action strip_vlan() {
        if (hdr.vlan.isValid()) {
            hdr.eth.ether_type = hdr.vlan.ether_type;
        }
        hdr.vlan.setInvalid();
    }
    action pop_label() {
        if (hdr.mpls[0].isValid()) {
            hdr.mpls.pop_front(1);
            if (!hdr.mpls[0].isValid()) {
                if (hdr.vlan.isValid()) {
                    hdr.vlan.ether_type = 0x0800;
                } else {
                    hdr.eth.ether_type = 0x0800;
                }
            }
        }
    }
    action push_label(bit<20> label) {
        if (!hdr.mpls[0].isValid()) {
            if (hdr.vlan.isValid()) {
                hdr.vlan.ether_type = 0x8847;
            } else {
                hdr.eth.ether_type = 0x8847;
            }
        }
        hdr.mpls.push_front(1);
        hdr.mpls[0].setValid();
        hdr.mpls[0].label = label;
        hdr.mpls[0].tc = 0;
        hdr.mpls[0].bos = hdr.mpls[1].isValid() ? 1w0 : 1w1;
        hdr.mpls[0].ttl = 64;
    }
    table by_dst {
        key = { hdr.eth.dst: exact; }
        actions = { swap_vlan_for_tag; strip_vlan; pop_label; push_label; NoAction; }
        default_action = NoAction();
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        by_dst.apply();
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.vlan);
        p.emit(hdr.tag);
        p.emit(hdr.mpls);
        p.emit(hdr.ipv4);
    }
}

xdp(prs(), sw(), dprs()) main;
