// Tables mixing every match kind: one keyed by lpm, ternary, range and
// optional together (entries from the control plane with priorities,
// overlapping, the larger priority winning whatever the prefix lengths),
// with a default action taking arguments that the control plane changes;
// one with const entries on odd-width fields (a masked bit<3>, an exact
// bit<5>, a `_`), the first listed winning where they overlap.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// a..g: the keys; r1..r3: what the tables did.
header data_t {
    bit<16> a;
    bit<8> b;
    bit<12> c;
    bit<4> e;
    bit<3> f;
    bit<5> g;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
}

struct headers_t {
    ethernet_t ethernet;
    data_t data;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.data);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action set1(bit<8> v) {
        hdr.data.r1 = v;
    }
    action miss1(bit<8> v, bit<8> w) {
        hdr.data.r1 = v;
        hdr.data.r2 = w;
    }
    action set3(bit<8> v) {
        hdr.data.r3 = v;
    }
    table mixed {
        key = {
            hdr.data.a: lpm;
            hdr.data.b: ternary;
            hdr.data.c: range;
            hdr.data.e: optional;
        }
        actions = { set1; miss1; }
        default_action = miss1(1, 2);
    }
    table consts {
        key = {
            hdr.data.f: ternary;
            hdr.data.g: exact;
            hdr.data.b: ternary;
        }
        actions = { set3; NoAction; }
        const entries = {
            (3w0b100 &&& 3w0b100, 5w7, _): set3(0x01);
            (_, 5w7, 8w0x3f): set3(0x02);
            (3w2, 5w31, _): set3(0x03);
        }
        default_action = NoAction();
    }
    apply {
        mixed.apply();
        consts.apply();
        send_to_port(ostd, (PortId_t) 3);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.data);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
