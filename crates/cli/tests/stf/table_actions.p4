// Compiler: what a table's `actions` list may say. A parameterless action
// written with parentheses (`Reject()`), actions whose directional
// parameters the list binds (`bump(hdr.h.count)`, a header passed `in`),
// the default action of a bound action, `switch` on `action_run` with a
// bound action as label, and `hit`/`miss` inside expressions, where the
// right side of `||` applies its table only when it is evaluated.
#include <core.p4>
#include <xdp_model.p4>

header h_t {
    bit<8> op;
    bit<8> count;
    bit<8> v;
    bit<8> flags;
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

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action Reject() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    action bump(inout bit<8> c, bit<8> by) {
        c = c + by;
    }
    action copy_from(in h_t src, bit<8> k) {
        hdr.h.v = src.count + k;
    }
    table t {
        key = { hdr.h.op : exact; }
        actions = { Reject(); bump(hdr.h.count); copy_from(hdr.h); }
        default_action = bump(hdr.h.count, 100);
    }
    action mark_third() {
        hdr.h.flags = hdr.h.flags | 8;
    }
    table third {
        key = { hdr.h.op : exact; }
        actions = { mark_third; NoAction; }
        default_action = NoAction;
    }
    table second {
        key = { hdr.h.v : exact; }
        actions = { NoAction; }
    }
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        switch (t.apply().action_run) {
            bump: {
                hdr.h.flags = hdr.h.flags | 1;
            }
            default: {
                hdr.h.flags = hdr.h.flags | 2;
            }
        }
        if (second.apply().hit && hdr.h.op != 0) {
            hdr.h.flags = hdr.h.flags | 4;
        }
        // `third` is applied only when op is not 7.
        if (hdr.h.op == 7 || third.apply().hit) {
            hdr.h.v = hdr.h.v | 0x80;
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.h);
    }
}

xdp(prs(), sw(), dprs()) main;
