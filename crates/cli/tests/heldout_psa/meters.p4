// Meters and table-bound externs: an indexed packet Meter colour-blind
// and colour-aware, a DirectCounter on an lpm table, a DirectMeter on a
// ternary table, an ActionProfile and an ActionSelector with a group of
// members. Colours go into the packet as 1 (GREEN), 2 (YELLOW), 3 (RED).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8> index;
    bit<8> pre_colour;
    bit<32> key;
    bit<8> blind;
    bit<8> aware;
    bit<8> direct;
    bit<8> routed;
    bit<8> selected;
    bit<8> profiled;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}
struct empty_t {}

bit<8> colour_code(in PSA_MeterColor_t colour) {
    if (colour == PSA_MeterColor_t.GREEN) { return 1; }
    if (colour == PSA_MeterColor_t.YELLOW) { return 2; }
    return 3;
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Meter<bit<8>>(8, PSA_MeterType_t.PACKETS) blind_meter;
    Meter<bit<8>>(8, PSA_MeterType_t.PACKETS) aware_meter;
    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) route_hits;
    DirectMeter(PSA_MeterType_t.PACKETS) class_meter;
    ActionProfile(16) profile;
    ActionSelector(PSA_HashAlgorithm_t.CRC32, 32w1024, 32w16) selector;

    action route(bit<8> v) {
        hdr.probe.routed = v;
        route_hits.count();
    }
    table routes {
        key = { hdr.probe.key : lpm; }
        actions = { route; NoAction; }
        psa_direct_counter = route_hits;
        default_action = NoAction;
    }

    action classify() {
        hdr.probe.direct = colour_code(class_meter.execute());
    }
    table classes {
        key = { hdr.probe.key : ternary; }
        actions = { classify; NoAction; }
        psa_direct_meter = class_meter;
        default_action = NoAction;
    }

    action select_v(bit<8> v) { hdr.probe.selected = v; }
    table balanced {
        key = {
            hdr.probe.index : exact;
            hdr.probe.key : selector;
        }
        actions = { select_v; NoAction; }
        psa_implementation = selector;
        default_action = NoAction;
    }

    action profile_v(bit<8> v) { hdr.probe.profiled = v; }
    table shared {
        key = { hdr.probe.index : exact; }
        actions = { profile_v; NoAction; }
        psa_implementation = profile;
        default_action = NoAction;
    }

    apply {
        hdr.probe.blind = colour_code(blind_meter.execute(hdr.probe.index));
        PSA_MeterColor_t pre = PSA_MeterColor_t.RED;
        if (hdr.probe.pre_colour == 1) {
            pre = PSA_MeterColor_t.GREEN;
        } else if (hdr.probe.pre_colour == 2) {
            pre = PSA_MeterColor_t.YELLOW;
        }
        hdr.probe.aware = colour_code(aware_meter.execute(hdr.probe.index, pre));
        routes.apply();
        classes.apply();
        balanced.apply();
        shared.apply();
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
