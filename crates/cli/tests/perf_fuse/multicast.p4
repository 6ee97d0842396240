// `orders.p4` with a multicast action: a copy is made of the bytes the
// ingress deparser writes, so a packet with a multicast group has its
// ingress headers written before the copies, and each copy's egress
// parses them (unfused); unicast packets stay fused.
#include <core.p4>
#include <psa.p4>

header bridge_t { bit<32> in_port; }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<16> ether_type; bit<4> pcp; bit<12> vid; }
header ipv4_t {
    bit<8> ver_ihl; bit<8> tos; bit<16> total_len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> checksum; }
header mark_t { bit<16> ether_type; bit<32> stamp; }

struct headers_t {
    bridge_t bridge; ethernet_t ethernet; tag_t tag; ipv4_t ipv4; udp_t udp; mark_t mark;
}
struct meta_t {}
struct empty_t {}

const bit<16> TAGGED = 0x88b5;
const bit<16> MARKED = 0x88b6;

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            TAGGED: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.ether_type) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 17: parse_udp; default: accept; }
    }
    state parse_udp { pkt.extract(hdr.udp); transition accept; }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action bridge(PortId_t port) {
        send_to_port(ostd, port);
        hdr.bridge.setValid();
        hdr.bridge.in_port = (bit<32>)istd.ingress_port;
    }
    action forward(PortId_t port) { bridge(port); }
    action tag_and_forward(PortId_t port) {
        bridge(port);
        hdr.tag.setValid();
        hdr.tag.ether_type = hdr.ethernet.ether_type;
        hdr.tag.pcp = 5;
        hdr.tag.vid = 0xabc;
        hdr.ethernet.ether_type = TAGGED;
    }
    action untag_and_forward(PortId_t port) {
        bridge(port);
        hdr.ethernet.ether_type = hdr.tag.ether_type;
        hdr.tag.setInvalid();
    }
    action no_bridge(PortId_t port) { send_to_port(ostd, port); }
    action flood(MulticastGroup_t group) {
        bridge((PortId_t)0);
        multicast(ostd, group);
        hdr.tag.setValid();
        hdr.tag.ether_type = hdr.ethernet.ether_type;
        hdr.tag.pcp = 1;
        hdr.tag.vid = 0x123;
        hdr.ethernet.ether_type = TAGGED;
    }
    table fwd {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; tag_and_forward; untag_and_forward; no_bridge; flood; NoAction; }
        default_action = NoAction();
    }
    apply {
        fwd.apply();
        if (hdr.ipv4.isValid()) { hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.bridge);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.bridge);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { TAGGED: parse_tag; default: accept; }
    }
    state parse_tag { pkt.extract(hdr.tag); transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.ethernet.src = (bit<48>)hdr.bridge.in_port;
        if (hdr.tag.isValid()) {
            hdr.mark.setValid();
            hdr.mark.ether_type = hdr.tag.ether_type;
            hdr.mark.stamp = 0xabcd0000 | (bit<32>)hdr.tag.vid;
            hdr.ethernet.ether_type = MARKED;
            hdr.tag.setInvalid();
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.mark); pkt.emit(hdr.tag); }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
