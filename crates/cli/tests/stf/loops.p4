// Compiler: loops. `for (init; cond; update)` with `continue` and `break`,
// `for (x in lo .. hi)` (also up to the type's largest value), and
// `for (x in stack)` over a header stack's elements; 128-bit arithmetic in
// a loop of run-time length.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8> n;
    bit<8> sum;
    bit<8> bits;
    bit<8> total;
    bit<8> counted;
}

header e_t {
    bit<8> v;
}

struct headers_t {
    h_t    h;
    e_t[3] es;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.h);
        p.extract(hdr.es.next);
        p.extract(hdr.es.next);
        p.extract(hdr.es.next);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        // 1 + 2 + ... + n, leaving out 5 and stopping before 9.
        bit<8> s = 0;
        for (bit<8> i = 1; i <= hdr.h.n; i = i + 1) {
            if (i == 5) {
                continue;
            }
            if (i == 9) {
                break;
            }
            s = s + i;
        }
        hdr.h.sum = s;
        // The bits set in n.
        bit<8> c = 0;
        for (bit<8> k in 0 .. 7) {
            if (((hdr.h.n >> k) & 1) == 1) {
                c = c + 1;
            }
        }
        hdr.h.bits = c;
        // total + every element + 6 rounds of a range ending at 255.
        for (e_t e in hdr.es) {
            hdr.h.total = hdr.h.total + e.v;
        }
        for (bit<8> m in 250 .. 255) {
            hdr.h.total = hdr.h.total + 1;
        }
        // n rounds of 128-bit arithmetic (its helpers inside a run-time loop).
        bit<128> acc = 0;
        for (bit<8> r in 1 .. hdr.h.n) {
            acc = acc + 128w0x10000000000000000;
        }
        hdr.h.counted = acc[71:64];
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
        p.emit(hdr.es);
    }
}

xdp(prs(), sw(), dprs()) main;
