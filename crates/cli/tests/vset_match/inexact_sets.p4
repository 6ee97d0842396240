// Parser value sets whose members are not matched exactly: one ternary
// field; three fields of mixed kinds (ternary, range, optional); lpm;
// range in a set of two; and a ternary set the control plane never
// writes, which must match nothing. The probe's `which` picks the set;
// `mark` says whether the select found a member.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8>  which;
    bit<16> a;
    bit<8>  b;
    bit<3>  c;
    bit<5>  pad;
    bit<32> addr;
    bit<8>  mark;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}
struct empty_t {}

struct tern_t {
    @match(ternary) bit<16> a;
}

struct mixed_t {
    @match(ternary)  bit<16> a;
    @match(range)    bit<8>  b;
    @match(optional) bit<3>  c;
}

struct prefix_t {
    @match(lpm) bit<32> addr;
}

struct bounds_t {
    @match(range) bit<8> b;
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    value_set<tern_t>(4) tern;
    value_set<mixed_t>(4) mixed;
    value_set<prefix_t>(4) prefixes;
    value_set<bounds_t>(2) bounds;
    value_set<tern_t>(3) never_written;
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition select(hdr.probe.which) {
            1: by_tern;
            2: by_mixed;
            3: by_prefix;
            4: by_bounds;
            5: by_never_written;
            default: accept;
        }
    }
    state by_tern {
        transition select(hdr.probe.a) { tern: member; default: accept; }
    }
    state by_mixed {
        transition select(hdr.probe.a, hdr.probe.b, hdr.probe.c) {
            mixed: member;
            default: accept;
        }
    }
    state by_prefix {
        transition select(hdr.probe.addr) { prefixes: member; default: accept; }
    }
    state by_bounds {
        transition select(hdr.probe.b) { bounds: member; default: accept; }
    }
    state by_never_written {
        transition select(hdr.probe.a) { never_written: member; default: accept; }
    }
    state member {
        hdr.probe.mark = 1;
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
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
