// A PSA ingress with one ternary table (two fields), for the table cache:
// a hit runs its action (rewrite the destination or the source) and
// marks the EtherType 0x8601.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct empty_t {}
struct metadata {}
struct headers { ethernet_t ethernet; }

parser IngressParserImpl(packet_in buffer, out headers hdr, inout metadata meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { buffer.extract(hdr.ethernet); transition accept; }
}

parser EgressParserImpl(packet_in buffer, out headers hdr, inout metadata meta,
                        in psa_egress_parser_input_metadata_t istd, in empty_t normal_meta,
                        in empty_t clone_i2e_meta, in empty_t clone_e2e_meta) {
    state start { buffer.extract(hdr.ethernet); transition accept; }
}

control ingress(inout headers hdr, inout metadata meta,
                in psa_ingress_input_metadata_t istd,
                inout psa_ingress_output_metadata_t ostd) {
    action rewrite(bit<48> dst) { hdr.ethernet.dstAddr = dst; }
    action mark(bit<48> src) { hdr.ethernet.srcAddr = src; }
    table tbl_ternary {
        key = {
            hdr.ethernet.dstAddr : ternary;
            hdr.ethernet.srcAddr : ternary;
        }
        actions = { NoAction; rewrite; mark; }
        default_action = NoAction;
        size = 8;
    }
    apply {
        if (tbl_ternary.apply().hit) {
            hdr.ethernet.etherType = 0x8601;
        }
        send_to_port(ostd, (PortId_t) 5);
    }
}

control egress(inout headers hdr, inout metadata meta,
               in psa_egress_input_metadata_t istd,
               inout psa_egress_output_metadata_t ostd) {
    apply {}
}

control IngressDeparserImpl(packet_out buffer, out empty_t clone_i2e_meta,
                            out empty_t resubmit_meta, out empty_t normal_meta,
                            inout headers hdr, in metadata meta,
                            in psa_ingress_output_metadata_t istd) {
    apply { buffer.emit(hdr.ethernet); }
}

control EgressDeparserImpl(packet_out buffer, out empty_t clone_e2e_meta,
                           out empty_t recirculate_meta, inout headers hdr,
                           in metadata meta, in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd) {
    apply { buffer.emit(hdr.ethernet); }
}

IngressPipeline(IngressParserImpl(), ingress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), egress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
