// Compiler: LPM then XDP_REDIRECT out of the chosen port (output record), TTL decremented in place.
#include <core.p4>
#include <xdp_model.p4>
header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<16> id;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}

struct headers_t {
    ethernet_t eth;
    ipv4_t     ipv4;
}
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
    action keep() {
        out_md.output_action = xdp_action.XDP_PASS;
    }
    table fib {
        key = { hdr.ipv4.dst : lpm; }
        actions = { forward; keep; }
        default_action = keep();
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
