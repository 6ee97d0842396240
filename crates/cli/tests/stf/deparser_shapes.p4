// Deparser shapes: one parser (Ethernet, optional VLAN, IPv4 or IPv6, UDP
// or TCP), one deparser emitting every header, a tag only an action adds
// and a VLAN tag an action removes. Each packet's bytes say whether the
// headers stayed in place, grew or shrank where they should.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header vlan_t { bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> ether_type; }
header tag_t { bit<16> magic; bit<16> ether_type; }
header ipv4_t {
    bit<8> version_ihl; bit<8> tos; bit<16> total_len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}
header ipv6_t {
    bit<32> vtf; bit<16> payload_len; bit<8> next_hdr; bit<8> hop_limit;
    bit<128> src; bit<128> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> checksum; }
header tcp_t { bit<16> sport; bit<16> dport; bit<32> seq; bit<32> ack; bit<16> flags; bit<16> window; bit<16> checksum; bit<16> urgent; }

struct headers_t {
    ethernet_t eth;
    vlan_t     vlan;
    tag_t      tag;
    ipv4_t     ipv4;
    ipv6_t     ipv6;
    udp_t      udp;
    tcp_t      tcp;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x8100: vlan;
            0x0800: ipv4;
            0x86dd: ipv6;
            default: accept;
        }
    }
    state vlan {
        p.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            0x0800: ipv4;
            0x86dd: ipv6;
            default: accept;
        }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: udp;
            6: tcp;
            default: accept;
        }
    }
    state ipv6 {
        p.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            17: udp;
            6: tcp;
            default: accept;
        }
    }
    state udp { p.extract(hdr.udp); transition accept; }
    state tcp { p.extract(hdr.tcp); transition accept; }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action push_tag(bit<16> magic) {
        hdr.tag.setValid();
        hdr.tag.magic = magic;
        if (hdr.vlan.isValid()) {
            hdr.tag.ether_type = hdr.vlan.ether_type;
            hdr.vlan.ether_type = 0x88b5;
        } else {
            hdr.tag.ether_type = hdr.eth.ether_type;
            hdr.eth.ether_type = 0x88b5;
        }
    }
    action pop_vlan() {
        if (hdr.vlan.isValid()) {
            hdr.eth.ether_type = hdr.vlan.ether_type;
            hdr.vlan.setInvalid();
        }
    }
    action set_port(bit<16> port) {
        hdr.udp.dport = port;
    }
    table by_dst {
        key = { hdr.eth.dst: exact; }
        actions = { push_tag; pop_vlan; set_port; NoAction; }
        default_action = NoAction();
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        by_dst.apply();
        if (hdr.ipv6.isValid()) {
            hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.vlan);
        p.emit(hdr.tag);
        p.emit(hdr.ipv4);
        p.emit(hdr.ipv6);
        p.emit(hdr.udp);
        p.emit(hdr.tcp);
    }
}

xdp(prs(), sw(), dprs()) main;
