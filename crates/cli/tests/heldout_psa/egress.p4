// Egress doing the work: a table keyed on istd.egress_port (a PSA
// `type`) whose actions mark, drop or exit, a Register counting packets
// per port, a Counter indexed by PortId_t, egress's own parser.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<8> mark;
    bit<16> seen;
    bit<8> after;
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
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) (bit<32>) hdr.ethernet.dst[7:0]);
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
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x88b5: tag;
            default: accept;
        }
    }
    state tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    Register<bit<16>, bit<8>>(256) seen;
    Counter<bit<32>, PortId_t>(512, PSA_CounterType_t.PACKETS) per_port;

    action mark(bit<8> v) { hdr.tag.mark = v; }
    action drop_it() { egress_drop(ostd); }
    action stop(bit<8> v) {
        hdr.tag.mark = v;
        exit;
    }
    table by_port {
        key = { istd.egress_port : exact; }
        actions = { mark; drop_it; stop; }
        default_action = mark(0xee);
    }

    apply {
        per_port.count(istd.egress_port);
        if (!hdr.tag.isValid()) {
            return;
        }
        bit<8> slot = (bit<8>) (bit<32>) istd.egress_port;
        bit<16> count = seen.read(slot);
        seen.write(slot, count + 1);
        hdr.tag.seen = count;
        by_port.apply();
        hdr.tag.after = 1;
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
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
