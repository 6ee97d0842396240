// PSA externs as programs use them: a Register with an initial value
// counting packets per flow, a Counter of each type, Hash with every
// algorithm through get_hash(base, data, max), InternetChecksum updating
// a UDP checksum incrementally (subtract, add, get_state, set_state) and
// recomputing the IPv4 one in the deparser, Random in a range.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header results_t {
    bit<32> seen;
    bit<16> crc16;
    bit<32> crc32;
    bit<16> ones;
    bit<16> identity;
    bit<8> random_ok;
    bit<16> next;
}

header ipv4_t {
    bit<4> version;
    bit<4> ihl;
    bit<8> tos;
    bit<16> total_len;
    bit<16> id;
    bit<3> flags;
    bit<13> frag;
    bit<8> ttl;
    bit<8> protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}

header udp_t {
    bit<16> sport;
    bit<16> dport;
    bit<16> length;
    bit<16> checksum;
}

struct headers_t {
    ethernet_t ethernet;
    results_t results;
    ipv4_t ipv4;
    udp_t udp;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.results);
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Register<bit<32>, bit<8>>(16, 100) seen;
    Counter<bit<32>, bit<8>>(8, PSA_CounterType_t.PACKETS) packets;
    Counter<bit<32>, bit<8>>(8, PSA_CounterType_t.BYTES) bytes;
    Counter<bit<32>, bit<8>>(8, PSA_CounterType_t.PACKETS_AND_BYTES) both;
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) crc16;
    Hash<bit<32>>(PSA_HashAlgorithm_t.CRC32) crc32;
    Hash<bit<16>>(PSA_HashAlgorithm_t.ONES_COMPLEMENT16) ones;
    Hash<bit<16>>(PSA_HashAlgorithm_t.IDENTITY) identity;
    Random<bit<8>>(10, 20) random;
    InternetChecksum() udp_sum;

    // NAT: a new destination address and port, the UDP checksum kept
    // right without reading the payload.
    action rewrite(bit<32> addr, bit<16> port) {
        udp_sum.clear();
        udp_sum.subtract(hdr.udp.checksum);
        udp_sum.subtract({hdr.ipv4.dst, hdr.udp.dport});
        bit<16> partial = udp_sum.get_state();
        udp_sum.clear();
        udp_sum.set_state(partial);
        udp_sum.add({addr, port});
        hdr.udp.checksum = udp_sum.get();
        hdr.ipv4.dst = addr;
        hdr.udp.dport = port;
    }

    apply {
        bit<8> flow = hdr.ipv4.src[7:0];
        bit<32> count;
        count = seen.read(flow);
        seen.write(flow, count + 1);
        hdr.results.seen = count;
        packets.count(flow);
        bytes.count(flow);
        both.count(flow);
        hdr.results.crc16 = crc16.get_hash({hdr.ipv4.src, hdr.ipv4.dst});
        hdr.results.crc32 = crc32.get_hash(32w1000, {hdr.ipv4.src, hdr.udp.sport}, 32w5000);
        hdr.results.ones = ones.get_hash({hdr.ipv4.src, hdr.ipv4.dst});
        hdr.results.identity = identity.get_hash(16w7, {hdr.udp.sport}, 16w100);
        bit<8> r = random.read();
        hdr.results.random_ok = (r >= 10 && r <= 20) ? 8w1 : 8w0;
        if (hdr.udp.isValid() && hdr.udp.dport == 53) {
            rewrite(0x0a000063, 5353);
        }
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    InternetChecksum() ip_sum;
    apply {
        ip_sum.clear();
        ip_sum.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos,
                    hdr.ipv4.total_len, hdr.ipv4.id, hdr.ipv4.flags,
                    hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.protocol,
                    hdr.ipv4.src, hdr.ipv4.dst});
        hdr.ipv4.checksum = ip_sum.get();
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.results);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
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
