// PSA's egress pipeline acting on the packet. Ingress sends by a table,
// pushes a tag header the egress parser finds by its ether type, and
// bridges a mark to egress in `normal_meta`. Egress parses a different
// header set (the tag as a header ingress never parsed), writes the
// egress port and packet path into the tag, counts per port, and drops
// packets to port 6 or with a bridged mark of 0xdd. Egress headers are
// another struct type than ingress's, so the egress parser really reads
// the bytes the ingress deparser wrote.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<8> mark;
    bit<8> port;
    bit<8> path;
    bit<8> cos;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
}

struct eg_headers_t {
    ethernet_t ethernet;
    tag_t tag;
}

struct bridged_t {
    bit<8> mark;
}

struct meta_t {}
struct empty_t {}

const bit<16> TAGGED = 0x88b5;

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
    action forward(PortId_t port, bit<8> mark) {
        send_to_port(ostd, port);
        ostd.class_of_service = (ClassOfService_t) 3;
        hdr.tag.setValid();
        hdr.tag.mark = mark;
        hdr.tag.port = 0;
        hdr.tag.path = 0xff;
        hdr.tag.cos = 0;
        hdr.tag.ether_type = hdr.ethernet.ether_type;
        hdr.ethernet.ether_type = TAGGED;
    }
    table fwd {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; NoAction; }
        default_action = NoAction;
    }
    apply {
        fwd.apply();
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out bridged_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_normal(istd)) {
            normal_meta.mark = hdr.tag.mark;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
    }
}

parser EgParser(packet_in pkt, out eg_headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in bridged_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TAGGED: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition select(normal_meta.mark) {
            0xdd: drop_marked;
            default: accept;
        }
    }
    state drop_marked {
        hdr.tag.mark = 0xdd;
        transition accept;
    }
}

control Eg(inout eg_headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    Counter<bit<32>, bit<32>>(8, PSA_CounterType_t.PACKETS) sent;
    apply {
        if (hdr.tag.isValid()) {
            hdr.tag.port = (bit<8>) (bit<32>) istd.egress_port;
            hdr.tag.path = (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) ? 8w1 : 8w0;
            hdr.tag.cos = (bit<8>) istd.class_of_service;
            if (hdr.tag.mark == 0xdd) {
                egress_drop(ostd);
            }
        }
        if (istd.egress_port == (PortId_t) 6) {
            egress_drop(ostd);
        }
        sent.count((bit<32>) istd.egress_port);
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout eg_headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
