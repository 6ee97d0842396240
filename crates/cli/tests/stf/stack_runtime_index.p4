// Compiler: header stack elements at a run-time index: reads, writes,
// isValid and setInvalid; a write out of range does nothing.
#include <core.p4>
#include <xdp_model.p4>

header idx_t {
    bit<8> i;
    bit<8> seen;
}

header tag_t {
    bit<8> v;
}

struct headers_t {
    idx_t    idx;
    tag_t[3] tags;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.idx);
        p.extract(hdr.tags.next);
        p.extract(hdr.tags.next);
        p.extract(hdr.tags.next);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        bit<8> i = hdr.idx.i & 0x0f;
        if (i < 3 && hdr.tags[i].isValid()) {
            hdr.idx.seen = hdr.tags[i].v;
        }
        hdr.tags[i].v = 0x99;
        if (hdr.idx.i[7:4] == 1) {
            hdr.tags[i].setInvalid();
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.idx);
        p.emit(hdr.tags);
    }
}

xdp(prs(), sw(), dprs()) main;
