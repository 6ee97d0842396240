// PSA resubmission: ingress resubmits a packet until its pass count,
// carried in the resubmit metadata, reaches 3, then sends it to the port
// its destination MAC names with the count and the last packet path in
// the source MAC. The first pass pushes a tag and rewrites the source:
// both are undone, since a resubmitted packet is the one received and
// every variable starts again. A packet to ff resubmits forever and is
// dropped at the bound.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<16> value;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
}

struct resubmit_t {
    bit<8> passes;
}

struct meta_t {
    bit<8> passes;
    bit<8> seen_path;
}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in resubmit_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        meta.passes = 0;
        meta.seen_path = 0;
        transition select(istd.packet_path) {
            PSA_PacketPath_t.RESUBMIT: resubmitted;
            default: parse_ethernet;
        }
    }
    state resubmitted {
        meta.passes = resubmit_meta.passes;
        meta.seen_path = 5;
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (hdr.ethernet.dst == 0xff || meta.passes < 3) {
            hdr.tag.setValid();
            hdr.tag.value = 0xbeef;
            hdr.ethernet.src = 0xdead;
            // PSA 1.2 6.2 drops a packet whose ostd.drop is still true
            // before it looks at ostd.resubmit.
            ostd.drop = false;
            ostd.resubmit = true;
        } else {
            hdr.ethernet.src = (bit<48>) meta.passes << 8 | (bit<48>) meta.seen_path;
            if (istd.packet_path == PSA_PacketPath_t.RESUBMIT) {
                hdr.ethernet.src = hdr.ethernet.src | 0x10000;
            }
            send_to_port(ostd, (PortId_t) (bit<32>) hdr.ethernet.dst);
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out resubmit_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        resubmit_meta.passes = meta.passes + 1;
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
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
    apply {
        pkt.emit(hdr.ethernet);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
