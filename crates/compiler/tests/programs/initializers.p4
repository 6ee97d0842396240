// xdp_model: initializers expand to one assignment per field; a header
// given a list becomes valid, `{#}` makes it invalid.
#include <core.p4>
#include <xdp_model.p4>
header h_t { bit<8> a; bit<16> b; }
struct pair_t { bit<8> lo; bit<8> hi; }
struct hs { h_t h; h_t extra; }
const pair_t P = { lo = 3, hi = 4 };
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        pair_t pair = { hi = hdr.h.a, ... };
        if (pair == P) {
            hdr.extra = { pair.lo, 16w7 };
        } else {
            hdr = { { P.hi, 0 }, {#} };
        }
        omd.output_action = xdp_action.XDP_PASS;
    }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr); } }
xdp(prs(), sw(), dprs()) main;
