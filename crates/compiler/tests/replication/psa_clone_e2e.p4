// PSA's E2E clone at TC and XDP: egress clones what its deparser writes.
#include <core.p4>
#include <psa.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { }
struct empty_metadata_t { }

parser IP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_ingress_parser_input_metadata_t istd, in empty_metadata_t r, in empty_metadata_t c) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control Ig(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd, inout psa_ingress_output_metadata_t ostd) {
    apply { send_to_port(ostd, (PortId_t)2); }
}
control ID(packet_out pkt, out empty_metadata_t c, out empty_metadata_t r, out empty_metadata_t n,
           inout headers_t hdr, in meta_t meta, in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.eth); }
}
parser EP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_egress_parser_input_metadata_t istd, in empty_metadata_t n,
          in empty_metadata_t ci, in empty_metadata_t ce) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd, inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.packet_path == PSA_PacketPath_t.CLONE_E2E) {
            hdr.eth.type = 0xface;
        } else {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t)8;
        }
    }
}
control ED(packet_out pkt, out empty_metadata_t ce, out empty_metadata_t rm, inout headers_t hdr, in meta_t meta,
           in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.eth); }
}

IngressPipeline(IP(), Ig(), ID()) ip;
EgressPipeline(EP(), Eg(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
