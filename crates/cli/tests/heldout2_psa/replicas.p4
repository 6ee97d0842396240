// Copies with metadata of odd widths: a multicast group with two
// replicas to the ingress port (instances 1 and 2) and one to another,
// each egress checking the bridged metadata; an I2E clone cut to 17 bytes
// by its session (its egress parser then runs short); an I2E clone to a
// session that follows a multicast group while the original stays
// dropped; an E2E clone made by a unicast packet's egress, its egress
// reading the clone metadata of odd widths the egress deparser wrote.
// Egress writes its packet path and instance into the source MAC.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ctl_t {
    bit<8> mode;
    bit<8> passes;
    bit<8> in_path;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
}

struct headers_t {
    ethernet_t ethernet;
    ctl_t ctl;
}

struct bridge_t {
    bit<3> a;
    bit<13> b;
    bool c;
    bit<7> d;
}

// What an E2E clone's egress gets from the egress deparser of the packet
// it is a copy of.
struct e2e_t {
    bit<7> mark;
    bool late;
}

struct in_meta_t {
    bridge_t bridge;
}

struct empty_t {}

bit<8> path_code(in PSA_PacketPath_t path) {
    if (path == PSA_PacketPath_t.NORMAL) { return 1; }
    if (path == PSA_PacketPath_t.NORMAL_UNICAST) { return 2; }
    if (path == PSA_PacketPath_t.NORMAL_MULTICAST) { return 3; }
    if (path == PSA_PacketPath_t.CLONE_I2E) { return 4; }
    if (path == PSA_PacketPath_t.CLONE_E2E) { return 5; }
    if (path == PSA_PacketPath_t.RESUBMIT) { return 6; }
    if (path == PSA_PacketPath_t.RECIRCULATE) { return 7; }
    return 0xff;
}

parser InParser(packet_in pkt, out headers_t hdr, inout in_meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        transition accept;
    }
}

control In(inout headers_t hdr, inout in_meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        meta.bridge = {5, 0x1abc, true, 0x55};
        hdr.ctl.passes = hdr.ctl.passes + 1;
        hdr.ctl.in_path = path_code(istd.packet_path);
        if (hdr.ctl.mode == 4) {
            multicast(ostd, (MulticastGroup_t) 1);
        } else if (hdr.ctl.mode == 5) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 7;
            send_to_port(ostd, (PortId_t) 2);
        } else if (hdr.ctl.mode == 8) {
            send_to_port(ostd, (PortId_t) 2);
        } else if (hdr.ctl.mode == 7) {
            // The original stays dropped; its clone is made all the same.
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 8;
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out bridge_t normal_meta,
                   inout headers_t hdr, in in_meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_normal(istd)) {
            normal_meta = meta.bridge;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ctl);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout bridge_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in bridge_t normal_meta, in empty_t clone_i2e_meta,
                in e2e_t clone_e2e_meta) {
    state start {
        transition select(istd.packet_path) {
            PSA_PacketPath_t.CLONE_E2E: from_egress;
            default: from_ingress;
        }
    }
    state from_egress {
        meta = {0, 0, clone_e2e_meta.late, clone_e2e_meta.mark};
        transition parse;
    }
    state from_ingress {
        meta = normal_meta;
        transition parse;
    }
    state parse {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout bridge_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.ethernet.src[7:0] = path_code(istd.packet_path);
        hdr.ethernet.src[15:8] = (bit<8>) (bit<16>) istd.instance;
        if (!hdr.ctl.isValid()) {
            return;
        }
        bool normal = istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST
            || istd.packet_path == PSA_PacketPath_t.NORMAL_MULTICAST;
        if (normal && meta.a == 5 && meta.b == 0x1abc && meta.c && meta.d == 0x55) {
            hdr.ctl.r3 = hdr.ctl.r3 | 0x80;
        }
        if (hdr.ctl.mode == 8 && istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 9;
        }
        if (istd.packet_path == PSA_PacketPath_t.CLONE_E2E) {
            hdr.ctl.r1 = (bit<8>) meta.d;
            hdr.ctl.r2 = meta.c ? 8w1 : 8w0;
        }
    }
}

control EgDeparser(packet_out pkt, out e2e_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in bridge_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_clone_e2e(istd)) {
            clone_e2e_meta = {0x5a, true};
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ctl);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
