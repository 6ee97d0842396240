// Trace: a table compiled into code (const entries), a hash table whose
// apply depends on the first's hit, a VLAN state, and a parser reject.
#include <core.p4>
#include <xdp_model.p4>
header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}
header vlan_t {
    bit<16> tci;
    bit<16> ether_type;
}
header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<32> id_frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}
struct headers_t {
    ethernet_t eth;
    vlan_t     vlan;
    ipv4_t     ipv4;
}
parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x8100: vlan;
            0x0800: ipv4;
        }
    }
    state vlan {
        p.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            0x0800: ipv4;
        }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition accept;
    }
}
control pipe(inout headers_t hdr, in xdp_input in_md, out xdp_output out_md) {
    action mark(bit<8> tos) {
        hdr.ipv4.tos = tos;
    }
    action refuse() {
        out_md.output_action = xdp_action.XDP_DROP;
    }
    action forward(bit<32> port) {
        out_md.output_action = xdp_action.XDP_REDIRECT;
        out_md.output_port = port;
    }
    table classify {
        key = { hdr.ipv4.protocol : exact; }
        actions = { mark; refuse; NoAction; }
        const entries = {
            6 : mark(7);
            17 : refuse();
        }
        default_action = NoAction();
    }
    table fwd {
        key = { hdr.eth.dst : exact; hdr.ipv4.dst : exact; }
        actions = { forward; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    apply {
        out_md.output_action = xdp_action.XDP_PASS;
        out_md.output_port = 0;
        if (classify.apply().hit) {
            fwd.apply();
        }
    }
}
control dep(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.vlan);
        p.emit(hdr.ipv4);
    }
}
xdp(prs(), pipe(), dep()) main;
