// ebpf_model: switch over a bit value with fall-through labels and exit in default.
#include <core.p4>
#include <ebpf_model.p4>
header h_t { bit<8> op; bit<8> x; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control f(inout hs hdr, out bool pass) {
    apply {
        pass = false;
        switch (hdr.h.op) {
            1: { pass = true; }
            2:
            3: { pass = hdr.h.x == 7; }
            default: { exit; }
        }
    }
}
ebpfFilter(prs(), f()) main;
