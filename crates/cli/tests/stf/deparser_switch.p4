// Compiler: a deparser that chooses what to emit with `switch` and `if`:
// the rebuilt packet's length counts exactly the headers emitted on the
// path taken, not every header that is valid.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8> a;
}

header t_t {
    bit<8> b;
}

header u_t {
    bit<16> c;
}

struct headers_t {
    h_t h;
    t_t t;
    u_t u;
}

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
        hdr.t.setValid();
        hdr.t.b = 0x77;
        hdr.u.setValid();
        hdr.u.c = 0x8899;
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
        switch (hdr.h.a) {
            1: { }
            2: { p.emit(hdr.t); }
            3:
            4: {
                if (hdr.h.a == 4) {
                    p.emit(hdr.u);
                }
                p.emit(hdr.t);
            }
            default: {
                p.emit(hdr.u);
                p.emit(hdr.t);
            }
        }
    }
}

xdp(prs(), sw(), dprs()) main;
