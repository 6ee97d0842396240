// ebpf_model, state over the stack budget: the parser extracts only the
// fields something reads (eth.type, ipv4.ttl), not all of them.
#include <core.p4>
#include <ebpf_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst; }
header word_t { bit<64> value; }
struct hs { eth_t eth; ipv4_t ipv4; word_t[40] words; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); transition select(hdr.eth.type) { 0x800: ip; default: accept; } }
    state ip { p.extract(hdr.ipv4); transition accept; }
}
control pipe(inout hs hdr, out bool pass) {
    apply { pass = hdr.ipv4.isValid() && hdr.ipv4.ttl > 1; }
}
ebpfFilter(prs(), pipe()) main;
