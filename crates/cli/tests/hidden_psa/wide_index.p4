// Counters and meters indexed by values wider than their 32-bit cell
// key: a 128-bit counter index and a 40-bit meter index. PSA defines
// indexes 0 to size-1; an index past the end touches no cell, even
// when its low 32 bits name one.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// The indexes the packet carries, and the colour the meter gave.
header probe_t {
    bit<128> counter_index;
    bit<40>  meter_index;
    bit<8>   colour;
}

struct empty_t {
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

parser InParser(packet_in packet, out headers_t hdr, inout empty_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        packet.extract(hdr.ethernet);
        packet.extract(hdr.probe);
        transition accept;
    }
}

control In(inout headers_t hdr, inout empty_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Counter<bit<32>, bit<128>>(8, PSA_CounterType_t.PACKETS) by_wide;
    Meter<bit<40>>(4, PSA_MeterType_t.PACKETS) rate;

    apply {
        by_wide.count(hdr.probe.counter_index);
        PSA_MeterColor_t colour = rate.execute(hdr.probe.meter_index);
        hdr.probe.colour = colour == PSA_MeterColor_t.RED ? 8w0xee : 8w0x66;
        send_to_port(ostd, (PortId_t)2);
    }
}

control InDeparser(packet_out packet, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in empty_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.probe);
    }
}

parser OutParser(packet_in packet, out headers_t hdr, inout empty_t meta,
                 in psa_egress_parser_input_metadata_t istd,
                 in empty_t normal_meta, in empty_t clone_i2e_meta,
                 in empty_t clone_e2e_meta) {
    state start {
        transition accept;
    }
}

control Out(inout headers_t hdr, inout empty_t meta,
            in psa_egress_input_metadata_t istd,
            inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control OutDeparser(packet_out packet, out empty_t clone_e2e_meta,
                    out empty_t recirculate_meta, inout headers_t hdr,
                    in empty_t meta, in psa_egress_output_metadata_t istd,
                    in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(OutParser(), Out(), OutDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
