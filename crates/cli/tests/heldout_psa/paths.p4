// Resubmission and recirculation with user metadata carried across
// passes, the packet path read in every block that sees one (through a
// function of the path), and egress's istd fields written into the
// packet. `mode` says how many resubmissions (high nibble) and
// recirculations (low nibble) a packet asks for; the resubmission count
// starts again on every recirculated pass. The bridged metadata nests a
// struct with a bool and odd widths; egress adds 0x10 to its parser's
// path code when it arrives whole.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header report_t {
    bit<8> mode;
    bit<8> resubmits;
    bit<8> recircs;
    bit<8> in_parser_path;
    bit<8> in_path;
    bit<8> eg_parser_path;
    bit<8> eg_path;
    bit<32> in_port;
    bit<32> eg_port;
    bit<16> instance;
    bit<8> cos;
}

struct headers_t {
    ethernet_t ethernet;
    report_t report;
}

struct meta_t {
    bit<8> resubmits;
    bit<8> recircs;
    bit<8> parser_path;
}

struct resubmit_t { bit<8> resubmits; bit<8> recircs; }
struct recirculate_t { bit<8> recircs; }
struct inner_t { bit<3> odd; bool flag; bit<13> rest; }
struct bridge_t { inner_t inner; bit<8> recircs; bool seen; }
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
                in resubmit_t resubmit_meta, in recirculate_t recirculate_meta) {
    state start {
        meta.parser_path = path_code(istd.packet_path);
        meta.resubmits = 0;
        meta.recircs = 0;
        transition select(istd.packet_path) {
            PSA_PacketPath_t.RESUBMIT: from_resubmit;
            PSA_PacketPath_t.RECIRCULATE: from_recirculate;
            default: headers;
        }
    }
    state from_resubmit {
        meta.resubmits = resubmit_meta.resubmits;
        meta.recircs = resubmit_meta.recircs;
        transition headers;
    }
    state from_recirculate {
        meta.recircs = recirculate_meta.recircs;
        transition headers;
    }
    state headers {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.report);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        hdr.report.resubmits = meta.resubmits;
        hdr.report.recircs = meta.recircs;
        hdr.report.in_parser_path = meta.parser_path;
        hdr.report.in_path = path_code(istd.packet_path);
        hdr.report.in_port = (bit<32>) istd.ingress_port;
        ostd.class_of_service = (ClassOfService_t) 5;
        if (meta.resubmits < hdr.report.mode >> 4) {
            ostd.resubmit = true;
            ostd.drop = false;
        } else if (meta.recircs < (hdr.report.mode & 0xf)) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else {
            send_to_port(ostd, (PortId_t) 2);
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out resubmit_t resubmit_meta, out bridge_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_resubmit(istd)) {
            resubmit_meta.resubmits = meta.resubmits + 1;
            resubmit_meta.recircs = meta.recircs;
        }
        if (psa_normal(istd)) {
            normal_meta.recircs = meta.recircs;
            normal_meta.seen = true;
            normal_meta.inner = {5, true, 13w0x1abc};
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.report);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in bridge_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        meta.parser_path = path_code(istd.packet_path);
        meta.recircs = normal_meta.recircs;
        if (normal_meta.seen && normal_meta.inner.flag && normal_meta.inner.odd == 5 && normal_meta.inner.rest == 0x1abc) {
            meta.parser_path = meta.parser_path + 0x10;
        }
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.report);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.report.eg_parser_path = meta.parser_path;
        hdr.report.eg_path = path_code(istd.packet_path);
        hdr.report.eg_port = (bit<32>) istd.egress_port;
        hdr.report.instance = (bit<16>) istd.instance;
        hdr.report.cos = (bit<8>) istd.class_of_service;
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out recirculate_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_recirculate(istd, edstd)) {
            recirculate_meta.recircs = meta.recircs + 1;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.report);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
