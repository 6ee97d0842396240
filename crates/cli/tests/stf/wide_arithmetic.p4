// Compiler: arithmetic on bit strings wider than 64 bits, as byte-array
// code: +, -, bitwise operators, unary minus, shifts by constants,
// comparisons, slices (also `[lo +: width]`), concatenation and casts, with
// wide constants.
#include <core.p4>
#include <xdp_model.p4>

header w_t {
    bit<8>   op;
    bit<128> a;
    bit<128> b;
    bit<64>  n;
    bit<72>  c;
}

struct headers_t {
    w_t w;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.w);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        bit<8> op = hdr.w.op;
        if (op == 1) {
            hdr.w.a = hdr.w.a + hdr.w.b;
            hdr.w.b = hdr.w.b - 128w1;
        } else if (op == 2) {
            hdr.w.a = hdr.w.a - hdr.w.b;
            hdr.w.c = hdr.w.c + 72w0x100000000000000001;
        } else if (op == 3) {
            hdr.w.a = (hdr.w.a & hdr.w.b) ^ ~hdr.w.b;
            hdr.w.b = hdr.w.b | 128w0xf0;
        } else if (op == 4) {
            hdr.w.a = hdr.w.a << 12;
            hdr.w.b = hdr.w.b >> 68;
            hdr.w.c = hdr.w.c << 3;
        } else if (op == 5) {
            hdr.w.n = hdr.w.a[100:37];
            hdr.w.c = (bit<72>)hdr.w.a[8 +: 16];
        } else if (op == 6) {
            hdr.w.a = hdr.w.n ++ hdr.w.n;
            hdr.w.c = hdr.w.op ++ hdr.w.n;
        } else if (op == 7) {
            if (hdr.w.a < hdr.w.b) {
                hdr.w.n = 1;
            } else if (hdr.w.a > hdr.w.b) {
                hdr.w.n = 2;
            } else if (hdr.w.a == hdr.w.b && hdr.w.a >= 128w5) {
                hdr.w.n = 3;
            }
        } else if (op == 8) {
            hdr.w.a = (bit<128>)hdr.w.n + 1;
            hdr.w.n = (bit<64>)hdr.w.b;
        } else if (op == 9) {
            hdr.w.a = -hdr.w.a;
        } else if (op == 10) {
            hdr.w.c = hdr.w.a[119:48];
            hdr.w.b = hdr.w.op ++ hdr.w.b[119:0];
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.w);
    }
}

xdp(prs(), sw(), dprs()) main;
