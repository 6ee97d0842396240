// I2E clones of a packet that recirculates, in a program that does not
// resubmit: the clone is of the packet as the cloning pass received it,
// the recirculated pass carries what egress wrote and leaves by the port
// it chooses; a packet egress drops on its way round leaves as its
// clones alone; a later pass that recirculates again keeps the first
// pass's clone; an E2E clone egress makes on the way round joins them.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// kind 1: cloned to session `arg`, recirculated, then to `port`; 2: the
// same, but egress drops it on its way round; 3: as 1, recirculated
// twice; 4: as 1, egress on the way round clones E2E to session 11.
// Egress writes the rest; the payload follows.
header command_t {
    bit<8> kind;
    bit<16> arg;
    bit<8> port;
    bit<8> eg_path;
    bit<8> eg_port;
    bit<8> rounds;
    bit<8> tag;
}

struct headers_t {
    ethernet_t ethernet;
    command_t command;
}

struct meta_t { bit<8> tag; }
struct clone_t { bit<8> tag; }
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.command);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        bool first = istd.packet_path != PSA_PacketPath_t.RECIRCULATE;
        if (first) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) hdr.command.arg;
        }
        if (first || (hdr.command.kind == 3 && hdr.command.rounds == 1)) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else {
            send_to_port(ostd, (PortId_t) (bit<32>) hdr.command.port);
        }
    }
}

control InDeparser(packet_out pkt, out clone_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_clone_i2e(istd)) {
            clone_i2e_meta.tag = 0xc1;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.command);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in clone_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        meta.tag = 0;
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.command);
        transition select(istd.packet_path) {
            PSA_PacketPath_t.CLONE_I2E: from_i2e;
            default: accept;
        }
    }
    state from_i2e {
        meta.tag = clone_i2e_meta.tag;
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.command.eg_path = (bit<8>) (istd.packet_path == PSA_PacketPath_t.CLONE_I2E ? 4w4 : 4w2);
        hdr.command.eg_port = (bit<8>) (bit<32>) istd.egress_port;
        hdr.command.tag = meta.tag;
        if (istd.egress_port == PSA_PORT_RECIRCULATE) {
            hdr.command.rounds = hdr.command.rounds + 1;
            if (hdr.command.kind == 4) {
                ostd.clone = true;
                ostd.clone_session_id = (CloneSessionId_t) 11;
            }
            if (hdr.command.kind == 2) {
                egress_drop(ostd);
            }
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.command);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
