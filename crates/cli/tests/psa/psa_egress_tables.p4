// Tables in PSA's egress control: an exact table rewrites the source MAC,
// a ternary one drops by EtherType. At TC the egress function's packet
// pointers once reached the verifier zero-extended by clang, which it
// refuses: a program of this shape did not load at TC.
#include <core.p4>
#include <psa.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t eth; }
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout empty_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control In(inout headers_t hdr, inout empty_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply { send_to_port(ostd, (PortId_t) 2); }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in empty_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.eth); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout empty_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control Eg(inout headers_t hdr, inout empty_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    action set_src(bit<48> src) { hdr.eth.src = src; }
    action drop() { egress_drop(ostd); }
    table by_dst {
        key = { hdr.eth.dst : exact; }
        actions = { set_src; NoAction; }
        default_action = NoAction;
    }
    table by_type {
        key = { hdr.eth.ether_type : ternary; }
        actions = { drop; NoAction; }
        default_action = NoAction;
    }
    apply {
        by_dst.apply();
        by_type.apply();
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in empty_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.eth); }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
