// xdp_model: arithmetic on 128-bit fields as byte-array helper calls, each
// into its own variable; a slice reads 64 bits of one.
#include <core.p4>
#include <xdp_model.p4>
header w_t { bit<128> a; bit<128> b; bit<64> n; }
struct hs { w_t w; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.w); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        if (hdr.w.a < hdr.w.b) {
            hdr.w.a = (hdr.w.a + hdr.w.b) >> 1;
        }
        hdr.w.n = hdr.w.a[95:32];
        omd.output_action = xdp_action.XDP_PASS;
    }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.w); } }
xdp(prs(), sw(), dprs()) main;
