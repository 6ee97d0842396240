// Parser paths that leave IPv4 at different offsets (no VLAN tag, one, or
// QinQ) and three tables after the parser: the verifier would walk the
// tables once per path, so the compiler hides where the parser left the
// headers (emit/parser_merge.rs). Each packet checks that the tables still
// read and write the right bytes on every path.
#include <core.p4>
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> ty; }
header vlan_t { bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> ty; }
header ipv4_t { bit<8> vihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag; bit<8> ttl; bit<8> proto; bit<16> sum; bit<32> src; bit<32> dst; }
header udp_t { bit<16> sp; bit<16> dp; bit<16> len; bit<16> sum; }
struct hs { eth_t eth; vlan_t outer; vlan_t inner; ipv4_t ipv4; udp_t udp; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); transition select(hdr.eth.ty) {
        0x8100: outer;
        0x0800: ipv4; default: accept; } }
    state outer { p.extract(hdr.outer); transition select(hdr.outer.ty) {
        0x8100: inner;
        0x0800: ipv4; default: accept; } }
    state inner { p.extract(hdr.inner); transition select(hdr.inner.ty) { 0x0800: ipv4; default: accept; } }
    state ipv4 { p.extract(hdr.ipv4); transition select(hdr.ipv4.proto) { 17: udp; default: accept; } }
    state udp { p.extract(hdr.udp); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    action fwd(bit<32> port) { omd.output_port = port; omd.output_action = xdp_action.XDP_REDIRECT; }
    action set_ttl(bit<8> ttl) { hdr.ipv4.ttl = ttl; }
    action mark(bit<8> tos) { hdr.ipv4.tos = tos; }
    action drop() { omd.output_action = xdp_action.XDP_DROP; }
    table routes { key = { hdr.ipv4.dst: lpm; } actions = { fwd; drop; } default_action = drop(); }
    table ttls { key = { hdr.ipv4.src: exact; hdr.ipv4.proto: exact; } actions = { set_ttl; NoAction; } default_action = NoAction(); }
    table marks { key = { hdr.udp.dp: exact; hdr.eth.src: exact; } actions = { mark; NoAction; } default_action = NoAction(); }
    apply {
        omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS;
        if (hdr.ipv4.isValid()) { routes.apply(); ttls.apply(); marks.apply(); }
    }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.eth); p.emit(hdr.outer); p.emit(hdr.inner); p.emit(hdr.ipv4); p.emit(hdr.udp); } }
xdp(prs(), sw(), dprs()) main;
