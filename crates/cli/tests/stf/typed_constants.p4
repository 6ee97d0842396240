// Compiler: constants are the checker's values. bit<8> arithmetic wraps at
// every step (an intermediate that overflows does not survive), saturating
// operators fold in constants and run at run time (signed ones clamp to
// int<8>'s range), casts reinterpret.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
    bit<8> f;
    bit<8> g;
}

struct headers_t {
    h_t h;
}

const bit<8> BASE = 200;
// BASE + 100 wraps to 44 in bit<8>, so HALF is 22 (not 300 >> 1 = 150).
const bit<8> HALF = (BASE + 100) >> 1;
const bit<8> SAT = BASE |+| 100;
const bit<8> FLOOR = 8w10 |-| BASE;
const int<8> NEG = -3;

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.h);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        hdr.h.a = HALF;
        hdr.h.b = SAT;
        hdr.h.c = FLOOR + (bit<8>)NEG;
        hdr.h.d = hdr.h.d |+| 8w250;
        hdr.h.e = hdr.h.e |-| (bit<8>)(int<8>)-6;
        hdr.h.f = (bit<8>)((int<8>)hdr.h.f |+| 8s100);
        hdr.h.g = (bit<8>)((int<8>)hdr.h.g |-| 8s100);
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
    }
}

xdp(prs(), sw(), dprs()) main;
