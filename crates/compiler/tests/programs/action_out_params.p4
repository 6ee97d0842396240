// xdp_model: an action with inout parameters called directly swaps two
// header fields; the in-place deparser writes both back.
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input in_md, out xdp_output out_md) {
    action swap(inout bit<48> a, inout bit<48> b) {
        bit<48> t = a;
        a = b;
        b = t;
    }
    apply {
        swap(hdr.eth.dst, hdr.eth.src);
        out_md.output_action = xdp_action.XDP_TX;
        out_md.output_port = 0;
    }
}

control dep(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
    }
}

xdp(prs(), sw(), dep()) main;
