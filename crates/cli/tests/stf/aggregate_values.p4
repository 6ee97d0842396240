// Compiler: headers, structs and stacks as values. == and != compare them
// element by element (headers by validity too); initializers are passed as
// arguments to functions and actions; a stack takes a list.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

header e_t {
    bit<8> v;
}

struct pair_t {
    bit<8> lo;
    bit<8> hi;
}

struct headers_t {
    h_t    h;
    h_t    other;
    e_t[2] es;
}

bit<8> sum(in pair_t p) {
    return p.lo + p.hi;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.h);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action put(in pair_t p) {
        hdr.h.b = p.hi;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        pair_t mine = { hdr.h.a, 8w3 };
        if (hdr.h.a == 1) {
            // A valid header against an invalid one.
            hdr.h.b = hdr.h == hdr.other ? 8w0x11 : 8w0x22;
        } else if (hdr.h.a == 2) {
            hdr.other = { 2, hdr.h.b };
            hdr.h.b = hdr.h == hdr.other ? 8w0x11 : 8w0x22;
            hdr.other.setInvalid();
        } else if (hdr.h.a == 3) {
            hdr.h.b = mine == { 3, 3 } && mine != { lo = 3, hi = 4 } ? 8w0x33 : 8w0x44;
        } else if (hdr.h.a == 4) {
            hdr.h.b = sum({ hdr.h.b, 8w0x10 });
            put({ 1, hdr.h.b + 1 });
        } else if (hdr.h.a == 5) {
            hdr.es = { { 0x51 }, { 0x52 } };
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
        p.emit(hdr.other);
        p.emit(hdr.es);
    }
}

xdp(prs(), sw(), dprs()) main;
