// Compiler: action parameters wider than 64 bits from the control plane and
// from a default action's wide constant; a wide constant in a comparison.
#include <core.p4>
#include <xdp_model.p4>
header h_t { bit<8> op; bit<128> addr; }
struct headers_t { h_t h; }
parser prs(packet_in p, out headers_t hdr) { state start { p.extract(hdr.h); transition accept; } }
control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action set(bit<128> a) { hdr.h.addr = a; }
    action add(bit<128> a) { hdr.h.addr = hdr.h.addr + a; }
    table t {
        key = { hdr.h.op : exact; }
        actions = { set; add; }
        default_action = set(128w0x0102030405060708090a0b0c0d0e0f10);
    }
    apply { omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS; t.apply(); if (hdr.h.addr == 128w5) { hdr.h.op = 0x55; } }
}
control dprs(in headers_t hdr, packet_out p) { apply { p.emit(hdr.h); } }
xdp(prs(), sw(), dprs()) main;
