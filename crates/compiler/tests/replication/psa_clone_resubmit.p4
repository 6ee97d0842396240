// PSA's clone I2E in a program that resubmits, at TC and XDP: the first
// pass clones (with its clone metadata) and resubmits, the second sends
// the packet on; a clone's egress notes the pass it came from.
#include <core.p4>
#include <psa.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { bit<8> from_pass; }
struct clone_meta_t { bit<8> from_pass; }
struct empty_t {}

parser IP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_ingress_parser_input_metadata_t istd,
          in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control Ig(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (istd.packet_path == PSA_PacketPath_t.RESUBMIT) {
            meta.from_pass = 2;
            send_to_port(ostd, (PortId_t) 2);
        } else {
            meta.from_pass = 1;
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 3;
            ostd.drop = false;
            ostd.resubmit = true;
        }
    }
}

control ID(packet_out pkt, out clone_meta_t clone_i2e_meta,
           out empty_t resubmit_meta, out empty_t normal_meta,
           inout headers_t hdr, in meta_t meta,
           in psa_ingress_output_metadata_t istd) {
    apply {
        clone_i2e_meta.from_pass = meta.from_pass;
        pkt.emit(hdr.eth);
    }
}

parser EP(packet_in pkt, out headers_t hdr, inout meta_t meta,
          in psa_egress_parser_input_metadata_t istd,
          in empty_t normal_meta, in clone_meta_t clone_i2e_meta,
          in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.eth);
        meta.from_pass = clone_i2e_meta.from_pass;
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) {
            hdr.eth.type = (bit<16>) meta.from_pass;
        }
    }
}

control ED(packet_out pkt, out empty_t clone_e2e_meta,
           out empty_t recirculate_meta, inout headers_t hdr,
           in meta_t meta, in psa_egress_output_metadata_t istd,
           in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.eth); }
}

PSA_Switch(IngressPipeline(IP(), Ig(), ID()), PacketReplicationEngine(),
           EgressPipeline(EP(), Eg(), ED()), BufferingQueueingEngine()) main;
