// Copies at XDP on the user target as in the kernel (PSA): ingress sends
// the packet to port 1 after a tag, multicasts it to the tag's group or
// clones it I2E to the tag's session; egress parses each copy again and
// changes it by its instance: it writes the copy's port, packet path and
// instance into the tag, grows instance 2's copies by a trailer, rewrites
// instance 3's destination, and drops instance 9's.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<8> op;
    bit<8> group;
    bit<8> session;
    bit<8> port;
    bit<8> path;
    bit<8> instance;
}

header trailer_t {
    bit<16> mark;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
    trailer_t trailer;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) 1);
        if (hdr.tag.op == 1) {
            multicast(ostd, (MulticastGroup_t) (bit<32>) hdr.tag.group);
        } else if (hdr.tag.op == 2) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) (bit<16>) hdr.tag.session;
        }
        hdr.tag.op = hdr.tag.op | 0x80;
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
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
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.tag.port = (bit<8>) (bit<32>) istd.egress_port;
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            hdr.tag.path = 1;
        } else if (istd.packet_path == PSA_PacketPath_t.NORMAL_MULTICAST) {
            hdr.tag.path = 2;
        } else if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) {
            hdr.tag.path = 3;
        }
        hdr.tag.instance = (bit<8>) (bit<16>) istd.instance;
        if (istd.instance == (EgressInstance_t) 2) {
            hdr.trailer.setValid();
            hdr.trailer.mark = 0xbeef;
        } else if (istd.instance == (EgressInstance_t) 3) {
            hdr.ethernet.dst = 0x0000000000aa;
        } else if (istd.instance == (EgressInstance_t) 9) {
            egress_drop(ostd);
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.trailer);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
