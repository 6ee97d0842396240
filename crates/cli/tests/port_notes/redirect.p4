// Sends a packet out of the P4 port its first four bytes name, or back out
// of the port it came in on when they are 0.
#include <xdp_model.p4>
header h_t { bit<32> port; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = hdr.h.port == 0 ? imd.input_port : hdr.h.port;
        omd.output_action = xdp_action.XDP_REDIRECT;
    }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.h); } }
xdp(prs(), sw(), dprs()) main;
