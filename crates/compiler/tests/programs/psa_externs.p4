// PSA's stateful and helper externs in one ingress: an InternetChecksum
// updated incrementally, a Counter of packets and bytes, a Meter, a Hash
// with base and max and a Random draw.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<64> head;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t ipv4;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    InternetChecksum() ck;
    Counter<bit<32>, bit<8>>(16, PSA_CounterType_t.PACKETS_AND_BYTES) seen;
    Meter<bit<8>>(16, PSA_MeterType_t.BYTES) rate;
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) flow;
    Random<bit<8>>(1, 6) dice;
    apply {
        ck.set_state(~hdr.ipv4.checksum);
        ck.subtract({ hdr.ipv4.ttl, hdr.ipv4.protocol });
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        ck.add({ hdr.ipv4.ttl, hdr.ipv4.protocol });
        hdr.ipv4.checksum = ck.get();
        bit<8> bucket = (bit<8>) flow.get_hash(16w0, { hdr.ipv4.src_addr, hdr.ipv4.dst_addr }, 16w16);
        seen.count(bucket);
        if (rate.execute(bucket) == PSA_MeterColor_t.RED) {
            ingress_drop(ostd);
        } else {
            send_to_port(ostd, (PortId_t) (bit<32>) dice.read());
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
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
