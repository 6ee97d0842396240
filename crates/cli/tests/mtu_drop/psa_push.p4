// PSA: ingress sends every packet to port 2, egress pushes a 20-byte
// tunnel header after Ethernet (`tests/mtu_drop.rs`).
#include <core.p4>
#include <psa.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tunnel_t { bit<32> id; bit<32> seq; bit<64> stamp; bit<16> inner_type; bit<16> len; }
struct headers_t { ethernet_t ethernet; tunnel_t tunnel; }
struct meta_t {}
struct empty_t {}

parser InParser(packet_in p, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd, in empty_t r, in empty_t c) {
    state start { p.extract(hdr.ethernet); transition accept; }
}
control In(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply { send_to_port(ostd, (PortId_t)2); }
}
control InDeparser(packet_out p, out empty_t ci2e, out empty_t rs, out empty_t nm,
                   inout headers_t hdr, in meta_t meta, in psa_ingress_output_metadata_t istd) {
    apply { p.emit(hdr.ethernet); }
}
parser EgParser(packet_in p, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd, in empty_t nm, in empty_t ci2e,
                in empty_t ce2e) {
    state start { p.extract(hdr.ethernet); transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.tunnel.setValid();
        hdr.tunnel.id = 0x7e57;
        hdr.tunnel.seq = 1;
        hdr.tunnel.stamp = 0;
        hdr.tunnel.inner_type = hdr.ethernet.ether_type;
        hdr.tunnel.len = 20;
        hdr.ethernet.ether_type = 0x88b5;
    }
}
control EgDeparser(packet_out p, out empty_t ce2e, out empty_t rc, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { p.emit(hdr.ethernet); p.emit(hdr.tunnel); }
}
IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
