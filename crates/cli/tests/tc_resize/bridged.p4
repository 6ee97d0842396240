// The packet grows and shrinks in one pass, as PSA programs that bridge
// metadata in a header do (PSA-eBPF's l2l3-acl): the ingress deparser
// emits a 4-byte header before Ethernet, the egress parser reads it back
// and the egress deparser leaves it out. A table chooses whether ingress
// also pushes an 8-byte tag after Ethernet, which egress keeps, so the
// packet leaves longer, or none, so it leaves as it came. On IPv4 frames
// TC resizes after the Ethernet header; every byte after the headers must
// come out where it went in.
#include <core.p4>
#include <psa.p4>

header bridge_t { bit<32> in_port; }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<16> ether_type; bit<16> zero; bit<32> in_port; }

struct headers_t { bridge_t bridge; ethernet_t ethernet; tag_t tag; }
struct meta_t {}
struct empty_t {}

const bit<16> TAGGED = 0x88b5;

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action forward(PortId_t port) { send_to_port(ostd, port); }
    action tag_and_forward(PortId_t port) {
        send_to_port(ostd, port);
        hdr.tag.setValid();
        hdr.tag.ether_type = hdr.ethernet.ether_type;
        hdr.tag.zero = 0;
        hdr.tag.in_port = (bit<32>)istd.ingress_port;
        hdr.ethernet.ether_type = TAGGED;
    }
    table fwd {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; tag_and_forward; NoAction; }
        default_action = NoAction();
    }
    apply {
        fwd.apply();
        hdr.bridge.setValid();
        hdr.bridge.in_port = (bit<32>)istd.ingress_port;
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.bridge); pkt.emit(hdr.ethernet); pkt.emit(hdr.tag); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.bridge);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TAGGED: parse_tag;
            default: accept;
        }
    }
    state parse_tag { pkt.extract(hdr.tag); transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tag); }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
