// A PSA ingress with an action selector, for the table cache: an exact
// table on the source whose entries name a member or a group; a group's
// member is picked by CRC32 of the destination.
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
    ActionSelector(PSA_HashAlgorithm_t.CRC32, 32w1024, 32w16) members;
    action fwd(PortId_t port) { send_to_port(ostd, port); }
    table by_source {
        key = {
            hdr.ethernet.srcAddr : exact;
            hdr.ethernet.dstAddr : selector;
        }
        actions = { NoAction; fwd; }
        psa_implementation = members;
    }
    apply {
        by_source.apply();
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
