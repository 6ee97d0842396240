// Replication: multicast groups with several instances (two copies to one
// port among them), egress seeing each copy's path, instance and port;
// I2E clones to a session the packet names (so packets in a row use
// different sessions), one of them with the original dropped; an E2E
// clone made by the unicast packet's egress. Clone metadata tells each
// copy's egress which deparser made it.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// kind 1: multicast to group `arg`; 2: to `port` and clone I2E to session
// `arg`; 3: to `port`, egress clones E2E to session `arg`; 4: only the
// I2E clone. Egress fills the rest.
header command_t {
    bit<8> kind;
    bit<16> arg;
    bit<8> port;
    bit<8> eg_path;
    bit<16> instance;
    bit<8> eg_port;
    bit<8> tag;
}

struct headers_t {
    ethernet_t ethernet;
    command_t command;
}

struct meta_t { bit<8> tag; }
struct clone_t { bit<8> tag; }
struct empty_t {}

bit<8> path_code(in PSA_PacketPath_t path) {
    if (path == PSA_PacketPath_t.NORMAL) { return 1; }
    if (path == PSA_PacketPath_t.NORMAL_UNICAST) { return 2; }
    if (path == PSA_PacketPath_t.NORMAL_MULTICAST) { return 3; }
    if (path == PSA_PacketPath_t.CLONE_I2E) { return 4; }
    if (path == PSA_PacketPath_t.CLONE_E2E) { return 5; }
    if (path == PSA_PacketPath_t.RESUBMIT) { return 6; }
    return 7;
}

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
        bit<8> kind = hdr.command.kind;
        if (kind == 1) {
            multicast(ostd, (MulticastGroup_t) (bit<32>) hdr.command.arg);
        } else if (kind == 2 || kind == 3) {
            send_to_port(ostd, (PortId_t) (bit<32>) hdr.command.port);
        }
        if (kind == 2 || kind == 4) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) hdr.command.arg;
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
                in clone_t clone_e2e_meta) {
    state start {
        meta.tag = 0;
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.command);
        transition select(istd.packet_path) {
            PSA_PacketPath_t.CLONE_I2E: from_i2e;
            PSA_PacketPath_t.CLONE_E2E: from_e2e;
            default: accept;
        }
    }
    state from_i2e {
        meta.tag = clone_i2e_meta.tag;
        transition accept;
    }
    state from_e2e {
        meta.tag = clone_e2e_meta.tag;
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.command.eg_path = path_code(istd.packet_path);
        hdr.command.instance = (bit<16>) istd.instance;
        hdr.command.eg_port = (bit<8>) (bit<32>) istd.egress_port;
        hdr.command.tag = meta.tag;
        if (istd.egress_port == (PortId_t) 6) {
            egress_drop(ostd);
        }
        if (hdr.command.kind == 3 && istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) hdr.command.arg;
        }
    }
}

control EgDeparser(packet_out pkt, out clone_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_clone_e2e(istd)) {
            clone_e2e_meta.tag = 0xe2;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.command);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
