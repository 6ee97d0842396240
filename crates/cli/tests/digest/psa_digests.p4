// PSA digests, packed in the ingress deparser as psa.p4 asks: a MAC
// learning digest for every frame (the PTF suite's DigestPSATest) and,
// for IPv6 frames, a digest with a 128-bit field and a 10-bit one (its
// WideFieldDigest).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv6_t {
    bit<32> version_class_flow;
    bit<16> payload_length;
    bit<8> next_header;
    bit<8> hop_limit;
    bit<128> src;
    bit<128> dst;
}

struct headers_t {
    ethernet_t ethernet;
    ipv6_t ipv6;
}

struct mac_learn_digest_t {
    bit<48> srcAddr;
    PortId_t ingress_port;
}

struct wide_digest_t {
    bit<128> srcAddr;
    bit<10> info;
}

struct meta_t {
    mac_learn_digest_t learn;
}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x86dd: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        meta.learn.srcAddr = hdr.ethernet.src;
        meta.learn.ingress_port = istd.ingress_port;
        send_to_port(ostd, (PortId_t) 5);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    Digest<mac_learn_digest_t>() mac_learn_digest;
    Digest<wide_digest_t>() d;
    apply {
        mac_learn_digest.pack(meta.learn);
        if (hdr.ipv6.isValid()) {
            d.pack({ hdr.ipv6.src, 10w1023 });
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv6);
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
