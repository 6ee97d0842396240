// PSA direct meters: an RFC 2698 meter in each entry, run when a hit's
// action calls `execute()`; rates set per entry by the control plane. An
// entry never set colours GREEN, as does a miss; an action without
// `execute()` spends no tokens. A colour-aware `execute(YELLOW)` spends
// only peak tokens. A second meter, of bytes, shares the entries (and
// the first meter's lock: the kernel allows one per map value).
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
    DirectMeter(PSA_MeterType_t.BYTES) volume;

    action write_colour(PSA_MeterColor_t c) {
        if (c == PSA_MeterColor_t.GREEN) {
            hdr.colour.seen = 1;
        } else if (c == PSA_MeterColor_t.YELLOW) {
            hdr.colour.seen = 2;
        } else {
            hdr.colour.seen = 3;
        }
    }
    action police(PortId_t port) {
        write_colour(rate.execute());
        send_to_port(ostd, port);
    }
    action police_yellow(PortId_t port) {
        write_colour(rate.execute(PSA_MeterColor_t.YELLOW));
        send_to_port(ostd, port);
    }
    action police_volume(PortId_t port) {
        write_colour(volume.execute());
        send_to_port(ostd, port);
    }
    action plain(PortId_t port) {
        send_to_port(ostd, port);
    }

    table by_dst {
        key = { hdr.ethernet.dst : exact; }
        actions = { police; police_yellow; police_volume; plain; }
        psa_direct_meter = { rate, volume };
        default_action = police(1);
    }

    apply {
        by_dst.apply();
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
