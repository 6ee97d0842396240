// PSA copies for the replication cost: ingress multicasts to group `arg`
// (op 1), sends to port `arg` (op 2), or sends to port 2 and clones to
// session `arg` (op 3, clone I2E). Egress writes what it saw into the
// packet: its port, the copy's instance and the packet path (1 unicast,
// 2 multicast, 3 clone I2E), so every copy really runs egress.
#include <core.p4>
#include <psa.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> arg; bit<16> port; bit<16> instance; bit<8> path; bit<8> pad; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (hdr.op.op == 1) {
            multicast(ostd, (MulticastGroup_t)(bit<32>)hdr.op.arg);
        } else if (hdr.op.op == 2) {
            send_to_port(ostd, (PortId_t)(bit<32>)hdr.op.arg);
        } else if (hdr.op.op == 3) {
            send_to_port(ostd, (PortId_t)32w2);
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t)(bit<16>)hdr.op.arg;
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.op.port = (bit<16>)(bit<32>)istd.egress_port;
        hdr.op.instance = (bit<16>)istd.instance;
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            hdr.op.path = 1;
        } else if (istd.packet_path == PSA_PacketPath_t.NORMAL_MULTICAST) {
            hdr.op.path = 2;
        } else if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) {
            hdr.op.path = 3;
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
