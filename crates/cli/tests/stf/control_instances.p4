// Compiler: controls instantiated inside a control with constructor
// arguments (by position, by name, a default), each instance inlined at its
// `apply` with its own constructor values.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    h_t h;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.h);
        transition accept;
    }
}

control add_k(inout bit<8> v)(bit<8> k, bool twice = false) {
    apply {
        v = v + k;
        if (twice) {
            v = v + k;
        }
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    add_k(3) plus3;
    add_k(twice = true, k = 5) plus10;
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        plus3.apply(hdr.h.a);
        plus10.apply(hdr.h.b);
        plus3.apply(hdr.h.b);
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
    }
}

xdp(prs(), sw(), dprs()) main;
