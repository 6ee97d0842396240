// Compiler: header stacks (next, last, lastIndex, size, push_front,
// pop_front), a header union whose member changes (by setValid and by
// assignment), select on a tuple with masks, ranges and `_`, and `exit`.
#include <core.p4>
#include <xdp_model.p4>

header eth_t {
    bit<8> kind;
    bit<8> n;
}

header tag_t {
    bit<8> v;
    bit<7> pad;
    bit<1> last;
}

header a_t {
    bit<8> x;
}

header b_t {
    bit<16> y;
}

header_union u_t {
    a_t a;
    b_t b;
}

struct headers_t {
    eth_t    eth;
    tag_t[3] tags;
    u_t      u;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.kind, hdr.eth.n) {
            (1, 0x00 &&& 0xf0): tags;
            (2, 1 .. 3): ua;
            (3, _): ub;
            default: accept;
        }
    }
    state tags {
        p.extract(hdr.tags.next);
        hdr.eth.n = (bit<8>)hdr.tags.lastIndex;
        transition select(hdr.tags.last.last) {
            1: accept;
            default: tags;
        }
    }
    state ua {
        p.extract(hdr.u.a);
        transition accept;
    }
    state ub {
        p.extract(hdr.u.b);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        if (hdr.eth.kind == 9) {
            exit;
        }
        if (hdr.tags[0].isValid()) {
            if (hdr.tags[0].v == 0xdd) {
                hdr.tags.pop_front(1);
            } else {
                hdr.tags.push_front(1);
                hdr.tags[0].setValid();
                hdr.tags[0] = { 0xee, 0, 0 };
            }
            hdr.eth.kind = (bit<8>)hdr.tags.size;
        }
        if (hdr.u.a.isValid()) {
            hdr.u.b.setValid();
            hdr.u.b.y = 8w0x80 ++ hdr.u.a.x;
        } else if (hdr.eth.kind == 5) {
            // Assigning a valid header to member a invalidates member b.
            a_t fresh = { 0x99 };
            hdr.u.b.setValid();
            hdr.u.b.y = 1;
            hdr.u.a = fresh;
        }
        hdr.eth.n = hdr.eth.n + 0x10;
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.tags);
        p.emit(hdr.u);
    }
}

xdp(prs(), sw(), dprs()) main;
