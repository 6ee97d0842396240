// PSA unicast: a table on the destination MAC sends to a port, rewrites
// the source MAC, counts and remembers per port; a miss keeps psa.p4's
// default (drop). The egress pipeline re-emits what it parsed, through a
// deparser helper control, and the pipelines are nested inline.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<8> kind;
    bit<8> seen;
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
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Counter<bit<32>, bit<32>>(8, PSA_CounterType_t.PACKETS) forwarded;
    Register<bit<8>, bit<32>>(8) last_kind;

    action forward(PortId_t port, bit<48> src) {
        send_to_port(ostd, port);
        hdr.ethernet.src = src;
        forwarded.count((bit<32>) port);
    }
    action drop() {
        ingress_drop(ostd);
    }
    table fwd {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; drop; NoAction; }
        default_action = NoAction;
    }
    apply {
        fwd.apply();
        if (hdr.tag.isValid()) {
            hdr.tag.seen = last_kind.read((bit<32>) istd.ingress_port);
            last_kind.write((bit<32>) istd.ingress_port, hdr.tag.kind);
        }
    }
}

control Emit(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    Emit() e;
    apply {
        e.apply(pkt, hdr);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x1234: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
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
    Emit() e;
    apply {
        e.apply(pkt, hdr);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
