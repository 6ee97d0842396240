// A table's initial, non-const `entries` (P4_16 14.2.1.4) with written
// and derived priorities under `largest_priority_wins = false` and a
// `priority_delta`, keyed on a header's validity (exact), a bit<12>
// (ternary) and a bool (optional). Each packet's verdict goes into the
// packet.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header data_t {
    bit<12> f;
    bit<3> pad;
    bit<1> flag;
    bit<8> verdict;
}

header opt_t {
    bit<8> kind;
}

struct headers_t {
    ethernet_t ethernet;
    data_t data;
    opt_t opt;
}

struct meta_t {
    bool flag;
}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.data);
        transition select(hdr.ethernet.ether_type) {
            0x88b6: parse_opt;
            default: accept;
        }
    }
    state parse_opt {
        pkt.extract(hdr.opt);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action mark(bit<8> v) {
        hdr.data.verdict = v;
    }
    table acl {
        key = {
            hdr.opt.isValid(): exact;
            hdr.data.f: ternary;
            meta.flag: optional;
        }
        actions = { mark; NoAction; }
        largest_priority_wins = false;
        priority_delta = 5;
        entries = {
            priority = 30: (true, 0x100 &&& 0xf00, _): mark(1);
            priority = 10: (true, 0x120 &&& 0xff0, true): mark(2);
            (false, _, _): mark(3);
            priority = 20: (true, _, false): mark(4);
        }
        default_action = NoAction();
    }
    apply {
        meta.flag = hdr.data.flag == 1;
        acl.apply();
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.data);
        pkt.emit(hdr.opt);
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
