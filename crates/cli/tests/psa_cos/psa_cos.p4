// PSA class of service and clone truncation. Ingress sends the packet to
// the port in `info.port` with class of service `info.cos`, and clones it
// I2E to session `info.i2e` when not 0; an egress (but an E2E clone's)
// clones it E2E to session `info.e2e` when not 0, writing 0xe0 | its path
// there. Every egress writes what it saw:
// its class of service, its packet path (1 unicast, 3 I2E clone, 4 E2E
// clone) and its instance. A copy cut inside `info` leaves as cut.
// `-D NO_E2E` leaves E2E clones out (refused at XDP).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header info_t {
    bit<8> port;
    bit<8> cos;
    bit<8> i2e;
    bit<8> e2e;
    bit<8> seen_cos;
    bit<8> path;
    bit<8> instance;
}

struct headers_t {
    ethernet_t ethernet;
    info_t info;
}

struct meta_t {}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.info);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) (bit<32>) hdr.info.port);
        ostd.class_of_service = (ClassOfService_t) (ClassOfServiceUint_t) hdr.info.cos;
        if (hdr.info.i2e != 0) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) (bit<16>) hdr.info.i2e;
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.info);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.info);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (!hdr.info.isValid()) {
            return;
        }
        hdr.info.seen_cos = (ClassOfServiceUint_t) istd.class_of_service;
        hdr.info.instance = (bit<8>) (EgressInstanceUint_t) istd.instance;
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            hdr.info.path = 1;
        } else if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) {
            hdr.info.path = 3;
        } else if (istd.packet_path == PSA_PacketPath_t.CLONE_E2E) {
            hdr.info.path = 4;
        }
#ifndef NO_E2E
        // Any egress but an E2E clone's clones E2E, noting its own path.
        if (hdr.info.e2e != 0 && istd.packet_path != PSA_PacketPath_t.CLONE_E2E) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) (bit<16>) hdr.info.e2e;
            hdr.info.e2e = 0xe0 | hdr.info.path;
        }
#endif
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.info);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
