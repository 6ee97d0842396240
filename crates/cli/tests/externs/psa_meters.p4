// PSA meters: colour-blind and colour-aware two-rate three-colour meters
// of packets and of bytes, indexed by the probe header; each packet
// leaves with the colours the meters gave it (psa.p4's codes: RED 0,
// GREEN 1, YELLOW 2).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8> index;
    bit<8> colour_in;
    bit<8> blind;
    bit<8> aware;
    bit<8> by_bytes;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

bit<8> code(in PSA_MeterColor_t colour) {
    if (colour == PSA_MeterColor_t.RED) {
        return 0;
    } else if (colour == PSA_MeterColor_t.GREEN) {
        return 1;
    }
    return 2;
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Meter<bit<8>>(4, PSA_MeterType_t.PACKETS) packets;
    Meter<bit<8>>(4, PSA_MeterType_t.PACKETS) aware;
    Meter<bit<8>>(4, PSA_MeterType_t.BYTES) bytes;
    apply {
        hdr.probe.blind = code(packets.execute(hdr.probe.index));
        PSA_MeterColor_t pre = hdr.probe.colour_in == 0 ? PSA_MeterColor_t.RED
                             : hdr.probe.colour_in == 2 ? PSA_MeterColor_t.YELLOW
                             : PSA_MeterColor_t.GREEN;
        hdr.probe.aware = code(aware.execute(hdr.probe.index, pre));
        hdr.probe.by_bytes = code(bytes.execute(hdr.probe.index));
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
