// xdp_model: longest-prefix match choosing a port; XDP_REDIRECT or XDP_TX.
#include <core.p4>
#include <xdp_model.p4>
#include "headers.p4"

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x0800: ipv4;
            default: reject;
        }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4, error.ParserInvalidArgument);
        transition accept;
    }
}

control route(inout headers_t hdr, in xdp_input in_md, out xdp_output out_md) {
    action forward(bit<32> port) {
        out_md.output_action = xdp_action.XDP_REDIRECT;
        out_md.output_port = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    action bounce() {
        out_md.output_action = xdp_action.XDP_TX;
        bit<48> tmp = hdr.eth.dst;
        hdr.eth.dst = hdr.eth.src;
        hdr.eth.src = tmp;
    }
    table fib {
        key = { hdr.ipv4.dst : lpm; }
        actions = { forward; bounce; }
        default_action = bounce();
        size = 4096;
    }
    apply {
        out_md.output_action = xdp_action.XDP_PASS;
        out_md.output_port = 0;
        fib.apply();
    }
}

control dep(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.ipv4);
    }
}

xdp(prs(), route(), dep()) main;
