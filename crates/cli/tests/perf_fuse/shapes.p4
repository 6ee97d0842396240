// Egress parsers that do not follow what ingress emitted: a header of
// another type but the same layout as the emitted one (taken from the
// state), one of the same size and other field widths (the ingress
// headers are written and parsed), a lookahead while emitted headers are
// left (written first), and extracts past the headers ingress parsed
// (read from the packet's own bytes, which have not moved), a parser
// error while emitted headers are left (they stay, after egress's). Ingress
// parses Ethernet only and emits an 8-byte bridged header and Ethernet;
// the packet's first byte after Ethernet says which egress path runs.
#include <core.p4>
#include <psa.p4>

header bridge_t { bit<32> in_port; bit<32> path; }
header pair_t { bit<32> x; bit<32> y; }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header words_t { bit<16> a; bit<64> b; bit<32> c; }
header ipv4_t {
    bit<8> ver_ihl; bit<8> tos; bit<16> total_len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> protocol; bit<16> checksum; bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> checksum; }
header path_t { bit<8> path; }

struct headers_t {
    bridge_t bridge; pair_t pair; ethernet_t ethernet; words_t words;
    path_t path; ipv4_t ipv4; udp_t udp;
}
struct meta_t { bit<8> peeked; }
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t)2);
        hdr.bridge.setValid();
        hdr.bridge.in_port = (bit<32>)istd.ingress_port;
        hdr.bridge.path = (bit<32>)hdr.ethernet.dst[7:0];
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.bridge); pkt.emit(hdr.ethernet); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.pair);
        transition select(hdr.pair.y) {
            1: same_layout;
            2: other_widths;
            3: peek;
            4: no_match;
            default: same_layout;
        }
    }
    state same_layout {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.path);
        transition select(hdr.ethernet.ether_type) { 0x0800: parse_ipv4; default: accept; }
    }
    state no_match { transition select(hdr.pair.x) { 0xffffffff: same_layout; } }
    state other_widths { pkt.extract(hdr.words); transition accept; }
    state peek {
        meta.peeked = pkt.lookahead<bit<8>>();
        transition same_layout;
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 17: parse_udp; default: accept; }
    }
    state parse_udp { pkt.extract(hdr.udp); transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (hdr.words.isValid()) {
            hdr.words.a = hdr.words.a + 1;
            hdr.words.c = hdr.pair.x;
        }
        if (hdr.ipv4.isValid()) { hdr.ipv4.ttl = meta.peeked; }
        if (hdr.udp.isValid()) { hdr.udp.checksum = 0; }
        hdr.path.path = hdr.path.path + 0x10;
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.words);
        pkt.emit(hdr.path);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
    }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
