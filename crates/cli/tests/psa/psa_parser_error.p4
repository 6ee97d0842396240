// PSA parser errors: a parser error does not drop the packet, ingress
// runs with `istd.parser_error` set and decides. This ingress sends a
// packet to a port chosen by the error: no error, a packet too short for
// its tag, a tag whose kind fails the parser's `verify`; any other error
// is dropped by ingress itself. An explicit `reject` sets no error: the
// packet is dropped before ingress (PSA-eBPF's reading, conformance/psa.md).
#include <core.p4>
#include <psa.p4>

error { ZeroKind }

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<8> kind;
    bit<8> len;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x1234: parse_tag;
            0x5678: no_match;
            0xdead: reject;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        verify(hdr.tag.kind != 0, error.ZeroKind);
        transition accept;
    }
    state no_match {
        transition select(hdr.ethernet.src[7:0]) {
            0x01: accept;
        }
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (istd.parser_error == error.NoError) {
            send_to_port(ostd, (PortId_t) 2);
        } else if (istd.parser_error == error.PacketTooShort) {
            send_to_port(ostd, (PortId_t) 3);
        } else if (istd.parser_error == error.ZeroKind) {
            send_to_port(ostd, (PortId_t) 4);
        } else {
            ingress_drop(ostd);
        }
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
