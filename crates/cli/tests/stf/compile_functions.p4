// Compiler: P4 functions inlined (early return, out parameters), called from an action.
#include <core.p4>
#include <ebpf_model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct hs {
    h_t h;
}

bit<8> max(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

void split(in bit<8> v, out bit<4> hi, out bit<4> lo) {
    hi = v[7:4];
    lo = v[3:0];
}

parser prs(packet_in p, out hs hdr) {
    state start {
        p.extract(hdr.h);
        transition accept;
    }
}

control f(inout hs hdr, out bool pass) {
    action check(bit<8> limit) {
        pass = max(hdr.h.a, hdr.h.b) <= limit;
    }
    apply {
        bit<4> hi;
        bit<4> lo;
        split(hdr.h.a, hi, lo);
        check(0x40);
        if (hi == lo) {
            pass = false;
        }
    }
}

ebpfFilter(prs(), f()) main;
