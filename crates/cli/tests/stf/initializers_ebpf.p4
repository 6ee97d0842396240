// Compiler: initializers in an ebpf_model filter: `{}` for an empty struct,
// `{ { 0 } }` for a struct of a header, `{#}` for a header.
#include <core.p4>
#include <ebpf_model.p4>
header a_t { bit<8> x; }
struct h_t { a_t a; }
struct e_t { }
parser prs(packet_in p, out h_t hdr) { state start { p.extract(hdr.a); transition accept; } }
control f(inout h_t hdr, out bool pass) {
    apply {
        e_t e = {};
        h_t copy = { { 0 } };
        if (hdr.a.x == 1) { hdr.a = {#}; }
        pass = hdr.a.isValid() && copy.a.x == 0;
    }
}
ebpfFilter(prs(), f()) main;
