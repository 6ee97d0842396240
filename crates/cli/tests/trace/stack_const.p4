// Trace: a header stack filled by `next` (its valid elements in the
// verdict), a const table with a ternary key and a default action with
// an argument, and a counter's calls.
#include <core.p4>
#include <xdp_model.p4>
header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}
header mpls_t {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}
struct headers_t {
    ethernet_t eth;
    mpls_t[3]  mpls;
}
parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x8847: label;
            default: accept;
        }
    }
    state label {
        p.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: label;
            1: accept;
        }
    }
}
control pipe(inout headers_t hdr, in xdp_input in_md, out xdp_output out_md) {
    CounterArray(32w8, false) labelled;
    action set_ttl(bit<8> ttl) {
        hdr.mpls[0].ttl = ttl;
    }
    action send(bit<32> port) {
        out_md.output_action = xdp_action.XDP_REDIRECT;
        out_md.output_port = port;
    }
    table by_label {
        key = { hdr.mpls[0].label : ternary; }
        actions = { send; set_ttl; }
        const entries = {
            0x00100 &&& 0xfff00 : send(4);
        }
        default_action = set_ttl(9);
    }
    apply {
        out_md.output_action = xdp_action.XDP_PASS;
        out_md.output_port = 0;
        if (hdr.mpls[0].isValid()) {
            by_label.apply();
            labelled.add((bit<32>)hdr.mpls[0].tc, 2);
        }
    }
}
control dep(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.mpls);
    }
}
xdp(prs(), pipe(), dep()) main;
