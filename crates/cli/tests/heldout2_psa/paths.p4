// Packet paths with metadata of odd widths across them: resubmission
// twice with resubmit metadata each pass changes (the packet resubmitted
// as it arrived), recirculation carrying recirculate metadata from the
// egress deparser and the packet as egress changed it, a drop in egress
// on the recirculated pass, bridged metadata checked by egress, a
// resubmission asked for while ostd.drop is still true (a drop). No
// copies: replicas.p4 has them (with both passes and copies, the
// verifier gives up on the program: heldout_psa's `copies` gap).
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

struct resub_t {
    bit<5> count;
    bit<11> tag;
}

struct recirc_t {
    bit<9> r;
    bool again;
}

struct in_meta_t {
    bridge_t bridge;
    resub_t resub;
    resub_t got_resub;
    recirc_t got_recirc;
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
                in resub_t resubmit_meta, in recirc_t recirculate_meta) {
    state start {
        meta.got_resub = resubmit_meta;
        meta.got_recirc = recirculate_meta;
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
        if (hdr.ctl.mode == 1) {
            if (istd.packet_path == PSA_PacketPath_t.RESUBMIT) {
                hdr.ctl.r1 = (bit<8>) meta.got_resub.count;
                hdr.ctl.r2 = meta.got_resub.tag[7:0];
                if (meta.got_resub.count == 2) {
                    send_to_port(ostd, (PortId_t) 2);
                } else {
                    meta.resub = {meta.got_resub.count + 1, meta.got_resub.tag + 1};
                    ostd.drop = false;
                    ostd.resubmit = true;
                }
            } else {
                meta.resub = {1, 0x7a5};
                ostd.drop = false;
                ostd.resubmit = true;
            }
        } else if (hdr.ctl.mode == 2 || hdr.ctl.mode == 3) {
            if (istd.packet_path == PSA_PacketPath_t.RECIRCULATE) {
                hdr.ctl.r1 = meta.got_recirc.r[7:0];
                hdr.ctl.r2 = meta.got_recirc.again ? 8w1 : 8w0;
                send_to_port(ostd, (PortId_t) 3);
            } else {
                send_to_port(ostd, PSA_PORT_RECIRCULATE);
            }
        } else if (hdr.ctl.mode == 6) {
            // ostd.drop is still true: dropped, not resubmitted.
            ostd.resubmit = true;
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out resub_t resubmit_meta, out bridge_t normal_meta,
                   inout headers_t hdr, in in_meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_resubmit(istd)) {
            resubmit_meta = meta.resub;
        }
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
                in empty_t clone_e2e_meta) {
    state start {
        meta = normal_meta;
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
        if (istd.egress_port == PSA_PORT_RECIRCULATE) {
            hdr.ctl.r3 = hdr.ctl.r3 | 0x40;
        } else if (hdr.ctl.mode == 3 && hdr.ctl.r3[6:6] == 1) {
            ostd.drop = true;
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out recirc_t recirculate_meta, inout headers_t hdr,
                   in bridge_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_recirculate(istd, edstd)) {
            recirculate_meta = {0x1a5, true};
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ctl);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
