// Hash over tuples of odd widths (bit<3>, bit<13>, a bool, bit<48>),
// through get_hash(base, data, max) with max not a power of two, with
// CRC16, CRC32, ONES_COMPLEMENT16 and IDENTITY, in ingress and in egress
// (a Hash instance of egress's own). PSA 1.2: get_hash(base, data, max)
// is base + (hash % max). The fields are one bit string, most
// significant bit first, zero-padded at its end to whole bytes (BMv2's
// field-list convention, which p4bpf follows).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header input_t {
    bit<3> f3;
    bit<13> f13;
    bit<7> pad;
    bit<1> flag;
    bit<48> mac;
}

header results_t {
    bit<16> crc16;
    bit<32> crc32_mod;
    bit<16> ones_mod;
    bit<16> crc16_mod;
    bit<16> identity_mod;
    bit<32> egress_crc32;
}

struct headers_t {
    ethernet_t ethernet;
    input_t input;
    results_t results;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.input);
        pkt.extract(hdr.results);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) crc16;
    Hash<bit<32>>(PSA_HashAlgorithm_t.CRC32) crc32;
    Hash<bit<16>>(PSA_HashAlgorithm_t.ONES_COMPLEMENT16) ones;
    Hash<bit<16>>(PSA_HashAlgorithm_t.IDENTITY) identity;
    apply {
        bool flag = hdr.input.flag == 1;
        hdr.results.crc16 = crc16.get_hash(
            {hdr.input.f3, hdr.input.f13, flag, hdr.input.mac});
        hdr.results.crc32_mod = crc32.get_hash(
            32w100, {hdr.input.f3, hdr.input.f13, flag, hdr.input.mac}, 32w1000003);
        hdr.results.ones_mod = ones.get_hash(
            16w7, {hdr.input.f13, flag, hdr.input.f3}, 16w13);
        hdr.results.crc16_mod = crc16.get_hash(
            16w0, {hdr.input.mac, hdr.input.f3}, 16w251);
        hdr.results.identity_mod = identity.get_hash(
            16w1, {hdr.input.f13, hdr.input.f3}, 16w1000);
        send_to_port(ostd, (PortId_t) 5);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.input);
        pkt.emit(hdr.results);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.input);
        pkt.extract(hdr.results);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    Hash<bit<32>>(PSA_HashAlgorithm_t.CRC32) crc32;
    apply {
        // What ingress computed, hashed again with a 13-bit field last.
        hdr.results.egress_crc32 = crc32.get_hash(
            {hdr.results.crc16, hdr.input.f13});
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.input);
        pkt.emit(hdr.results);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
