// Compiler: initializers. Lists, named fields and `...` for headers,
// structs and structs of headers; `{#}`; constants of struct type. A header
// given a value becomes valid, `{#}` makes it invalid.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8>  a;
    bit<16> b;
}

header t_t {
    bit<8> x;
    bit<8> y;
}

struct pair_t {
    bit<8> lo;
    bit<8> hi;
}

struct headers_t {
    h_t h;
    t_t t;
}

struct empty_t {}

const pair_t FOUR_THREE = { lo = 3, hi = 4 };

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.h);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        empty_t nothing = {};
        pair_t p = { hi = hdr.h.a, ... };
        headers_t copy = { { 8w9, 16w0x0102 }, ... };
        if (hdr.h.a == 1) {
            hdr.t = { p.lo, p.hi };
        } else if (hdr.h.a == 2) {
            hdr = { { copy.h.a, copy.h.b }, {#} };
        } else if (hdr.h.a == 3) {
            hdr.t = { FOUR_THREE.hi, ... };
        } else if (hdr.h.a == 4) {
            hdr.h = {#};
        } else if (hdr.h.a == 5) {
            p = FOUR_THREE;
            hdr.t = { x = p.hi, y = p.lo };
        } else if (hdr.h.a == 6) {
            hdr = copy;
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
        p.emit(hdr.t);
    }
}

xdp(prs(), sw(), dprs()) main;
