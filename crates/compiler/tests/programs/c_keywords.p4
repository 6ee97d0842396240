// ebpf_model: P4 names that are C keywords get a trailing underscore in C.
#include <core.p4>
#include <ebpf_model.p4>
header long { bit<8> register; bit<8> do; }
struct hs { long char; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.char); transition accept; } }
control f(inout hs hdr, out bool pass) {
    action static(bit<8> auto) { pass = hdr.char.register == auto; }
    table t { key = { hdr.char.do : exact; } actions = { static; NoAction; } }
    apply { bit<8> while = 1; pass = while == 1; t.apply(); }
}
ebpfFilter(prs(), f()) main;
