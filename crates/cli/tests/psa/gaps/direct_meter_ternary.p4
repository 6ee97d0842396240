// PSA DirectMeter on a table of ternary and range keys, with a
// DirectCounter beside it: each rule, overlapping others, has its own
// meter and counter, spent only by the packets it wins (the highest
// priority among those that match). Rates are set per rule, by its key
// and priority.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header colour_t {
    bit<8> seen;
}

struct headers_t {
    ethernet_t ethernet;
    colour_t colour;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.colour);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    DirectMeter(PSA_MeterType_t.PACKETS) rate;
    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) hits;

    action police(PortId_t port) {
        hits.count();
        PSA_MeterColor_t c = rate.execute();
        if (c == PSA_MeterColor_t.GREEN) {
            hdr.colour.seen = 1;
        } else if (c == PSA_MeterColor_t.YELLOW) {
            hdr.colour.seen = 2;
        } else {
            hdr.colour.seen = 3;
        }
        send_to_port(ostd, port);
    }

    table police_by_addr {
        key = {
            hdr.ethernet.dst : ternary;
            hdr.ethernet.src : range;
        }
        actions = { police; NoAction; }
        psa_direct_meter = rate;
        psa_direct_counter = hits;
        default_action = NoAction;
    }

    apply {
        send_to_port(ostd, (PortId_t) 9);
        police_by_addr.apply();
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.colour);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        transition accept;
    }
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
