// Narrow fields ingress computes (a 12-bit sum that wraps, a 4-bit
// saturating add) reach egress through the state: they must be what
// writing and parsing them gives, cut to their widths.
#include <core.p4>
#include <psa.p4>
header bridge_t { bit<32> in_port; }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<16> ether_type; bit<4> pcp; bit<12> vid; }
struct headers_t { bridge_t bridge; ethernet_t ethernet; tag_t tag; }
struct meta_t {}
struct empty_t {}
parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta, in psa_ingress_parser_input_metadata_t istd, in empty_t r, in empty_t c) {
    state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.tag); transition accept; }
}
control In(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd, inout psa_ingress_output_metadata_t ostd) {
    apply { send_to_port(ostd, (PortId_t)2); hdr.bridge.setValid(); hdr.bridge.in_port = 7;
            hdr.tag.vid = hdr.tag.vid + 0xfff; hdr.tag.pcp = hdr.tag.pcp |+| 9; }
}
control InDeparser(packet_out pkt, out empty_t a, out empty_t b, out empty_t c, inout headers_t hdr, in meta_t meta, in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.bridge); pkt.emit(hdr.ethernet); pkt.emit(hdr.tag); }
}
parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta, in psa_egress_parser_input_metadata_t istd, in empty_t a, in empty_t b, in empty_t c) {
    state start { pkt.extract(hdr.bridge); pkt.extract(hdr.ethernet); pkt.extract(hdr.tag); transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd, inout psa_egress_output_metadata_t ostd) {
    apply { hdr.ethernet.src = (bit<48>)hdr.tag.vid; hdr.ethernet.dst = (bit<48>)hdr.tag.pcp; }
}
control EgDeparser(packet_out pkt, out empty_t a, out empty_t b, inout headers_t hdr, in meta_t meta, in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t e) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tag); }
}
IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
