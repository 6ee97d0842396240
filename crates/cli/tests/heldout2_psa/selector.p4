// An ActionSelector with groups of 1, 3 and 7 members and an empty one,
// selector keys of odd widths (bit<3>, bit<13>, bit<5>: a 21-bit string
// to hash) after an exact key, an entry naming a member directly, and a
// psa_empty_group_action the control plane changes. Each member sends
// to a port of its own, writing its own value.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header flow_t {
    bit<8> group_key;
    bit<3> s3;
    bit<13> s13;
    bit<5> s5;
    bit<3> pad;
    bit<8> picked;
}

struct headers_t {
    ethernet_t ethernet;
    flow_t flow;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.flow);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    ActionSelector(PSA_HashAlgorithm_t.CRC16, 32w64, 32w16) balancer;
    action pick(bit<8> v, PortId_t port) {
        hdr.flow.picked = v;
        send_to_port(ostd, port);
    }
    table spread {
        key = {
            hdr.flow.group_key: exact;
            hdr.flow.s3: selector;
            hdr.flow.s13: selector;
            hdr.flow.s5: selector;
        }
        actions = { pick; NoAction; }
        psa_implementation = balancer;
        psa_empty_group_action = pick(0xee, (PortId_t) 9);
        default_action = NoAction();
    }
    apply {
        send_to_port(ostd, (PortId_t) 1);
        spread.apply();
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.flow);
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
