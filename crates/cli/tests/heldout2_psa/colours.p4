// A colour-aware BYTES meter whose pre-colour comes from a table (an
// action argument turned into a PSA_MeterColor_t in metadata, the
// table's default giving GREEN), the table counted by a DirectCounter of
// packets and bytes, and a PACKETS_AND_BYTES Counter indexed by an
// expression of two fields. Colours go into the packet as 1 (GREEN), 2
// (YELLOW), 3 (RED).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8> cls;
    bit<8> sub;
    bit<8> index;
    bit<8> pre;
    bit<8> got;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {
    PSA_MeterColor_t pre;
}

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
    Meter<bit<8>>(4, PSA_MeterType_t.BYTES) by_bytes;
    Counter<bit<32>, bit<8>>(8, PSA_CounterType_t.PACKETS_AND_BYTES) both;
    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS_AND_BYTES) hits;

    // PSA: a direct counter counts when an action of its table calls
    // count().
    action set_colour(bit<8> code) {
        hits.count();
        meta.pre = code == 1 ? PSA_MeterColor_t.GREEN
                 : (code == 2 ? PSA_MeterColor_t.YELLOW : PSA_MeterColor_t.RED);
    }
    table precolour {
        key = { hdr.probe.cls: exact; }
        actions = { set_colour; }
        default_action = set_colour(1);
        psa_direct_counter = hits;
    }
    apply {
        precolour.apply();
        hdr.probe.pre = colour_code(meta.pre);
        hdr.probe.got = colour_code(by_bytes.execute(hdr.probe.index, meta.pre));
        both.count((hdr.probe.cls ^ hdr.probe.sub) & 7);
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
