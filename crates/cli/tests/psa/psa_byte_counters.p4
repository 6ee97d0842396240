// What a PSA byte counter counts (PSA leaves the packet length to the
// implementation): p4bpf counts the frame as it arrived on its port, in
// ingress and in egress alike, whatever ingress or egress made of it.
// Ingress adds a 4-byte tag; egress adds 2 more bytes to a tagged packet.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<16> id;
    bit<16> ether_type;
}

header mark_t {
    bit<16> value;
}

struct empty_t {
}

struct metadata_t {
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
    mark_t mark;
}

parser InParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control In(inout headers_t hdr, inout metadata_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Counter<bit<64>, bit<8>>(4, PSA_CounterType_t.BYTES) in_bytes;
    Counter<bit<64>, bit<8>>(4, PSA_CounterType_t.PACKETS_AND_BYTES) in_both;

    apply {
        in_bytes.count((bit<8>)(bit<32>)istd.ingress_port);
        in_both.count((bit<8>)(bit<32>)istd.ingress_port);
        if (hdr.ethernet.ether_type == 0x9000) {
            hdr.tag.setValid();
            hdr.tag.id = 0x7777;
            hdr.tag.ether_type = hdr.ethernet.ether_type;
            hdr.ethernet.ether_type = 0x88b5;
        }
        send_to_port(ostd, (PortId_t)2);
    }
}

control InDeparser(packet_out packet, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out metadata_t normal_meta,
                   inout headers_t hdr, in metadata_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.tag);
    }
}

parser OutParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                 in psa_egress_parser_input_metadata_t istd,
                 in metadata_t normal_meta, in empty_t clone_i2e_meta,
                 in empty_t clone_e2e_meta) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x88b5: tagged;
            default: accept;
        }
    }
    state tagged {
        packet.extract(hdr.tag);
        transition accept;
    }
}

control Out(inout headers_t hdr, inout metadata_t meta,
            in psa_egress_input_metadata_t istd,
            inout psa_egress_output_metadata_t ostd) {
    Counter<bit<64>, bit<8>>(4, PSA_CounterType_t.BYTES) out_bytes;

    apply {
        if (hdr.tag.isValid()) {
            hdr.mark.setValid();
            hdr.mark.value = 0xabcd;
        }
        out_bytes.count((bit<8>)(bit<32>)istd.egress_port);
    }
}

control OutDeparser(packet_out packet, out empty_t clone_e2e_meta,
                    out empty_t recirculate_meta, inout headers_t hdr,
                    in metadata_t meta, in psa_egress_output_metadata_t istd,
                    in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.tag);
        packet.emit(hdr.mark);
    }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(OutParser(), Out(), OutDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
