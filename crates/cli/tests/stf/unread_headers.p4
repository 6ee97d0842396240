// Headers no code reads a field of (UDP, TCP) are extracted by a length
// check alone: a packet cut inside them is still PacketTooShort
// (dropped), a whole one passes with its bytes untouched, and a field
// assigned in such a header is still written into the packet.
#include <core.p4>
#include <xdp_model.p4>

header eth_h { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_h {
    bit<8> vihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header udp_h { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header tcp_h { bit<16> sport; bit<16> dport; bit<32> seq; bit<32> ack; bit<16> flags; bit<16> win; bit<16> csum; bit<16> urg; }

struct headers_t { eth_h eth; ipv4_h ipv4; udp_h udp; tcp_h tcp; }

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x0800: v4; default: accept; }
    }
    state v4 {
        p.extract(hdr.ipv4);
        transition select(hdr.ipv4.proto) { 17: udp; 6: tcp; default: accept; }
    }
    state udp { p.extract(hdr.udp); transition accept; }
    state tcp { p.extract(hdr.tcp); transition accept; }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        }
        if (hdr.tcp.isValid()) {
            hdr.tcp.win = 0x0102;
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply { p.emit(hdr.eth); p.emit(hdr.ipv4); p.emit(hdr.udp); p.emit(hdr.tcp); }
}

xdp(prs(), sw(), dprs()) main;
