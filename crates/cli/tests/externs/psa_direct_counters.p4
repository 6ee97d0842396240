// PSA direct counters: cells in table entries, counted when the entry's
// action calls `count()` (directly or through another action). One
// counter is attached to two tables and counts each table's entries
// apart; an lpm table counts too; a miss counts nothing.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    DirectCounter<bit<64>>(PSA_CounterType_t.PACKETS_AND_BYTES) both;
    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) packets;
    DirectCounter<bit<64>>(PSA_CounterType_t.BYTES) bytes;

    action forward(PortId_t port) {
        both.count();
        send_to_port(ostd, port);
    }
    action forward_uncounted(PortId_t port) {
        send_to_port(ostd, port);
    }
    action count_bytes() {
        bytes.count();
    }
    action tag(bit<16> type) {
        packets.count();
        count_bytes();
        hdr.ethernet.ether_type = type;
    }
    action tag_only(bit<16> type) {
        both.count();
        hdr.ethernet.ether_type = type;
    }

    table by_dst {
        key = { hdr.ethernet.dst : exact; }
        actions = { forward; forward_uncounted; NoAction; }
        psa_direct_counter = both;
        default_action = forward(1);
    }
    table by_src {
        key = { hdr.ethernet.src : lpm; }
        actions = { tag; tag_only; NoAction; }
        psa_direct_counter = { packets, bytes, both };
    }

    apply {
        by_dst.apply();
        by_src.apply();
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
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
