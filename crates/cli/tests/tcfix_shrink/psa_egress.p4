// PSA: ingress emits what it parsed; the egress parser parses the
// 34-byte prefix again (`headers.p4`) and rejects with an error on a
// selector it does not know, which PSA hands to the egress control; the
// egress deparser emits the first `a.sel` bytes, whether the parser
// rejected or not.
#include <core.p4>
#include <psa.p4>
#include "headers.p4"

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { EXTRACT_PREFIX(pkt, hdr); transition accept; }
}
control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply { send_to_port(ostd, (PortId_t)32w2); }
}
control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { EMIT_PREFIX(pkt, hdr); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        EXTRACT_PREFIX(pkt, hdr);
        verify(hdr.a.sel == 0 || hdr.a.sel == 4 || hdr.a.sel == 13 || hdr.a.sel == 14
               || hdr.a.sel == 20 || hdr.a.sel == 34, error.ParserInvalidArgument);
        transition accept;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    KeepSelBytes() keep;
    apply { keep.apply(hdr); }
}
control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { EMIT_PREFIX(pkt, hdr); }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
