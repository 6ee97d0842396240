// Compiler: switch on values (bit strings and an enum, with fall-through
// labels and default), `return` from a control and an action, `exit` from
// an action, a function with several returns, a generic function called at
// two widths, named arguments and a parameter's default value (for a
// function and an action, with `_` for an `out` argument), tuples, and
// a parser select on a range into a state that reads a header looked ahead.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8> op;
    bit<8> x;
    bit<8> y;
    bit<8> res;
}

struct headers_t {
    h_t h;
}

header peek_t {
    bit<8> op;
    bit<8> next;
}

enum Color { Red, Green, Blue }

bit<8> clamp(in bit<8> v, in bit<8> lo, in bit<8> hi) {
    if (v < lo) {
        return lo;
    }
    if (v > hi) {
        return hi;
    }
    return v;
}

bit<8> scaled(in bit<8> v, in bit<8> by = 2) {
    return v * by;
}

T pick<T>(in bool first, in T a, in T b) {
    if (first) {
        return a;
    }
    return b;
}

parser prs(packet_in p, out headers_t hdr) {
    peek_t ahead;
    state start {
        ahead = p.lookahead<peek_t>();
        p.extract(hdr.h);
        transition select(hdr.h.op) {
            7 .. 9: mark;
            default: accept;
        }
    }
    state mark {
        hdr.h.y = ahead.next;
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action stop() {
        hdr.h.res = 0xee;
        exit;
    }
    action early(bit<8> v) {
        if (v == 0) {
            return;
        }
        hdr.h.res = v;
    }
    action add_to(inout bit<8> total, in bit<8> step = 1, out bit<8> before) {
        before = total;
        total = total + step;
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        tuple<bit<8>, bool> pair = { hdr.h.x, hdr.h.x > 0x80 };
        Color c = Color.Red;
        switch (hdr.h.op) {
            1: { c = Color.Green; }
            2:
            3: { c = Color.Blue; }
            4: { stop(); }
            5: { early(0); early(hdr.h.x); }
            6: {
                hdr.h.res = clamp(hdr.h.x, 0x10, 0x20);
                return;
            }
            10: { hdr.h.res = scaled(by = 3, v = hdr.h.x) + scaled(hdr.h.x); }
            11: {
                add_to(before = hdr.h.y, total = hdr.h.res);
                add_to(hdr.h.res, 0x10, _);
            }
            default: {
                bit<16> wide = pick(pair[1], (bit<16>)pair[0], 16w0x17f);
                hdr.h.res = pick(true, wide[7:0], 8w0);
            }
        }
        switch (c) {
            Color.Green: { hdr.h.res = 0x01; }
            Color.Blue: { hdr.h.res = hdr.h.res + 0x02; }
        }
        hdr.h.x = 0;
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
    }
}

xdp(prs(), sw(), dprs()) main;
