// Both arms of an if-else store the same header field, and every branch
// of an if-else chain stores the same field of a second header: the
// stores go straight into the packet, each behind its bounds check.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// The 128-bit field matters: with it, clang merged the two stores of
// `ether_type` and recomputed their pointer.
header tag_t {
    bit<8>   kind;
    bit<24>  value;
    bit<128> flow;
}

struct empty_t {
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
}

parser InParser(packet_in packet, out headers_t hdr, inout empty_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        packet.extract(hdr.ethernet);
        packet.extract(hdr.tag);
        transition accept;
    }
}

control In(inout headers_t hdr, inout empty_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        bit<8> low = hdr.ethernet.dst[7:0];
        if (low == 1) {
            hdr.ethernet.ether_type = 0x0800;
        } else {
            hdr.ethernet.ether_type = 0x86dd;
        }
        if (hdr.tag.kind == 1) {
            hdr.tag.value = 0xaaaaaa;
        } else if (hdr.tag.kind == 2) {
            hdr.tag.value = 0x555555;
        } else {
            hdr.tag.value = 0x0f0f0f;
        }
        send_to_port(ostd, (PortId_t)2);
    }
}

control InDeparser(packet_out packet, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in empty_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.tag);
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
