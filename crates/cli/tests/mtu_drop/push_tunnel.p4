// xdp_model: every frame from port 1 leaves by port 2 with a 20-byte
// tunnel header pushed after Ethernet (`tests/mtu_drop.rs`).
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tunnel_t { bit<32> id; bit<32> seq; bit<64> stamp; bit<16> inner_type; bit<16> len; }

struct headers_t { ethernet_t ethernet; tunnel_t tunnel; }

parser prs(packet_in p, out headers_t hdr) {
    state start { p.extract(hdr.ethernet); transition accept; }
}

control encap(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        hdr.tunnel.setValid();
        hdr.tunnel.id = 0x7e57;
        hdr.tunnel.seq = 1;
        hdr.tunnel.stamp = 0;
        hdr.tunnel.inner_type = hdr.ethernet.ether_type;
        hdr.tunnel.len = 20;
        hdr.ethernet.ether_type = 0x88b5;
        omd.output_port = 2;
        omd.output_action = xdp_action.XDP_REDIRECT;
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply { p.emit(hdr.ethernet); p.emit(hdr.tunnel); }
}

xdp(prs(), encap(), dprs()) main;
