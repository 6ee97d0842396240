// Multicast and clones around passes: a packet both multicast and
// resubmitted is resubmitted (PSA 1.2 6.2: resubmit before multicast),
// its resubmitted pass multicasts; a packet sent to recirculate is
// cloned E2E by its egress on the way round, the recirculated pass
// leaves by a port or multicasts. Fields as in recirc_clone_resubmit.p4.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// kind 1: multicast to group `arg` and resubmit, then multicast to group
// `arg`. kind 2: recirculate, egress cloning E2E to session `arg`, then
// out of `port`. kind 3: as 2, then multicast to group `port`. A replica
// to port 6 is dropped by egress.
header command_t {
    bit<8> kind;
    bit<16> arg;
    bit<8> port;
    bit<8> in_paths;
    bit<8> eg_count;
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
struct tag_t { bit<8> tag; }

bit<2> ingress_code(in PSA_PacketPath_t path) {
    if (path == PSA_PacketPath_t.RESUBMIT) { return 2; }
    if (path == PSA_PacketPath_t.RECIRCULATE) { return 3; }
    return 1;
}

bit<8> egress_code(in PSA_PacketPath_t path) {
    if (path == PSA_PacketPath_t.NORMAL_UNICAST) { return 2; }
    if (path == PSA_PacketPath_t.NORMAL_MULTICAST) { return 3; }
    if (path == PSA_PacketPath_t.CLONE_I2E) { return 4; }
    if (path == PSA_PacketPath_t.CLONE_E2E) { return 5; }
    return 7;
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in tag_t resubmit_meta, in tag_t recirculate_meta) {
    state start {
        meta.tag = 0;
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.command);
        transition select(istd.packet_path) {
            PSA_PacketPath_t.RESUBMIT: resubmitted;
            PSA_PacketPath_t.RECIRCULATE: recirculated;
            default: accept;
        }
    }
    state resubmitted {
        meta.tag = resubmit_meta.tag;
        transition accept;
    }
    state recirculated {
        meta.tag = recirculate_meta.tag;
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        bit<8> kind = hdr.command.kind;
        hdr.command.in_paths = (hdr.command.in_paths << 2)
                               | (bit<8>) ingress_code(istd.packet_path);
        bool normal = istd.packet_path == PSA_PacketPath_t.NORMAL;
        MulticastGroup_t arg_group = (MulticastGroup_t) (bit<32>) hdr.command.arg;
        if (kind == 1) {
            multicast(ostd, arg_group);
            ostd.resubmit = normal;
        } else if (normal) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else if (kind == 3) {
            multicast(ostd, (MulticastGroup_t) (bit<32>) hdr.command.port);
        } else {
            send_to_port(ostd, (PortId_t) (bit<32>) hdr.command.port);
        }
    }
}

control InDeparser(packet_out pkt, out tag_t clone_i2e_meta,
                   out tag_t resubmit_meta, out tag_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_resubmit(istd)) {
            resubmit_meta.tag = meta.tag + 1;
        }
        if (psa_normal(istd)) {
            normal_meta.tag = meta.tag;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.command);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in tag_t normal_meta, in tag_t clone_i2e_meta,
                in tag_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.command);
        transition select(istd.packet_path) {
            PSA_PacketPath_t.CLONE_E2E: from_e2e;
            default: from_ingress;
        }
    }
    state from_ingress {
        meta.tag = normal_meta.tag;
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
        hdr.command.eg_count = hdr.command.eg_count + 1;
        hdr.command.eg_path = egress_code(istd.packet_path);
        hdr.command.instance = (bit<16>) istd.instance;
        hdr.command.eg_port = (bit<8>) (bit<32>) istd.egress_port;
        hdr.command.tag = meta.tag;
        if (istd.egress_port == (PortId_t) 6) {
            egress_drop(ostd);
        }
        if (istd.egress_port == PSA_PORT_RECIRCULATE) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) hdr.command.arg;
        }
    }
}

control EgDeparser(packet_out pkt, out tag_t clone_e2e_meta,
                   out tag_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_clone_e2e(istd)) {
            clone_e2e_meta.tag = 0xe2;
        }
        if (psa_recirculate(istd, edstd)) {
            recirculate_meta.tag = 0x7e;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.command);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
