// Deparser pops: a service tag and a customer tag (QinQ), each optional,
// that actions only ever remove. Since nothing but the parser makes a tag
// valid, a valid tag at the deparser was parsed; the rewrite after a pop
// must still move a tag that stays behind one that went, carry a field
// assigned before the pop, and leave untouched packets alone.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header vlan_t { bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> ether_type; }
header ipv4_t {
    bit<8> version_ihl; bit<8> tos; bit<16> total_len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}

struct headers_t {
    ethernet_t eth;
    vlan_t     s_tag;
    vlan_t     c_tag;
    ipv4_t     ipv4;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x88a8: s_tag;
            0x8100: c_tag;
            0x0800: ipv4;
            default: accept;
        }
    }
    state s_tag {
        p.extract(hdr.s_tag);
        transition select(hdr.s_tag.ether_type) {
            0x8100: c_tag;
            0x0800: ipv4;
            default: accept;
        }
    }
    state c_tag {
        p.extract(hdr.c_tag);
        transition select(hdr.c_tag.ether_type) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 { p.extract(hdr.ipv4); transition accept; }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action pop_s_tag() {
        if (hdr.s_tag.isValid()) {
            hdr.eth.ether_type = hdr.s_tag.ether_type;
            hdr.s_tag.setInvalid();
        }
    }
    action pop_c_tag() {
        if (hdr.c_tag.isValid()) {
            if (hdr.s_tag.isValid()) {
                hdr.s_tag.ether_type = hdr.c_tag.ether_type;
            } else {
                hdr.eth.ether_type = hdr.c_tag.ether_type;
            }
            hdr.c_tag.setInvalid();
        }
    }
    action pop_both() {
        pop_c_tag();
        pop_s_tag();
    }
    // Renumbers the customer tag, then pops the service tag.
    action remark_and_pop_s_tag(bit<12> vid) {
        hdr.c_tag.vid = vid;
        hdr.c_tag.pcp = 5;
        pop_s_tag();
    }
    table by_dst {
        key = { hdr.eth.dst: exact; }
        actions = { pop_s_tag; pop_c_tag; pop_both; remark_and_pop_s_tag; NoAction; }
        default_action = NoAction();
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_TX;
        by_dst.apply();
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.s_tag);
        p.emit(hdr.c_tag);
        p.emit(hdr.ipv4);
    }
}

xdp(prs(), sw(), dprs()) main;
