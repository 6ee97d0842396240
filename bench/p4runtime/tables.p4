// The insertion-rate benchmark's program (bench/p4runtime/rates.py): one
// exact and one lpm table on the IPv4 destination, room for 100K entries
// each.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_h {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_h {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<16> id;
    bit<16> frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct headers_t {
    ethernet_h ethernet;
    ipv4_h ipv4;
}

parser RatesParser(packet_in packet, out headers_t hdr) {
    state start {
        packet.extract(hdr.ethernet);
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control RatesIngress(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action send(bit<32> port) {
        omd.output_port = port;
        omd.output_action = xdp_action.XDP_TX;
    }

    table hosts {
        key = { hdr.ipv4.dst_addr: exact; }
        actions = { send; NoAction; }
        default_action = NoAction();
        size = 131072;
    }

    table routes {
        key = { hdr.ipv4.src_addr: lpm; }
        actions = { send; NoAction; }
        default_action = NoAction();
        size = 131072;
    }

    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        hosts.apply();
        routes.apply();
    }
}

control RatesDeparser(in headers_t hdr, packet_out packet) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

xdp(RatesParser(), RatesIngress(), RatesDeparser()) main;
