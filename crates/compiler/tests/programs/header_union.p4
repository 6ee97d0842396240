// ebpf_model: a header union, its validity and setValid on a member.
#include <core.p4>
#include <ebpf_model.p4>
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union u_t { a_t a; b_t b; }
struct hs { a_t sel; u_t u; }
parser prs(packet_in p, out hs hdr) {
    state start {
        p.extract(hdr.sel);
        transition select(hdr.sel.x) { 1: pa; 2: pb; default: accept; }
    }
    state pa { p.extract(hdr.u.a); transition accept; }
    state pb { p.extract(hdr.u.b); transition accept; }
}
control f(inout hs hdr, out bool pass) {
    apply {
        pass = hdr.u.isValid() && (hdr.u.a.isValid() || hdr.u.b.y == 0x1234);
        if (hdr.u.b.isValid()) { hdr.u.a.setValid(); }
    }
}
ebpfFilter(prs(), f()) main;
