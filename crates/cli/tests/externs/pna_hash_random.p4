// PNA's Hash (every algorithm p4bpf computes, with and without base and
// max), Random (a range, a full 32-bit range, a single value) and a
// Counter of bytes, in P4TC's tc/pna.p4. The probe header carries the
// data in and the results out; a range check flags any draw out of range.
#include <core.p4>
#include <tc/pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<32> a;
    bit<16> b;
    bit<8>  c;
    bit<8>  out_of_range;
    bit<32> crc32;
    bit<16> crc16;
    bit<16> csum;
    bit<32> identity;
    bit<32> default_hash;
    bit<16> bounded;
    bit<8>  drawn;
    bit<8>  fixed;
    bit<32> any;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}

parser Parser(packet_in pkt, out headers_t hdr, inout meta_t meta,
              in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control Main(inout headers_t hdr, inout meta_t meta,
             in pna_main_input_metadata_t istd,
             inout pna_main_output_metadata_t ostd) {
    Hash<bit<32>>(PNA_HashAlgorithm_t.CRC32) crc32;
    Hash<bit<16>>(PNA_HashAlgorithm_t.CRC16) crc16;
    Hash<bit<16>>(PNA_HashAlgorithm_t.ONES_COMPLEMENT16) csum;
    Hash<bit<32>>(PNA_HashAlgorithm_t.IDENTITY) identity;
    Hash<bit<32>>(PNA_HashAlgorithm_t.TARGET_DEFAULT) default_hash;
    Random<bit<8>>(10, 12) drawn;
    Random<bit<8>>(7, 7) fixed;
    Random<bit<32>>(0, 0xffffffff) any;
    Counter<bit<64>, bit<32>>(4, PNA_CounterType_t.BYTES) bytes;
    apply {
        hdr.probe.crc32 = crc32.get_hash({ hdr.probe.a, hdr.probe.b, hdr.probe.c });
        hdr.probe.crc16 = crc16.get_hash({ hdr.probe.a, hdr.probe.b, hdr.probe.c });
        hdr.probe.csum = csum.get_hash({ hdr.probe.a, hdr.probe.b });
        hdr.probe.identity = identity.get_hash(hdr.probe.a);
        hdr.probe.default_hash = default_hash.get_hash({ hdr.probe.a, hdr.probe.b, hdr.probe.c });
        hdr.probe.bounded = (bit<16>) crc32.get_hash(16w100, { hdr.probe.a, hdr.probe.b, hdr.probe.c }, 16w50);
        hdr.probe.drawn = drawn.read();
        hdr.probe.fixed = fixed.read();
        hdr.probe.any = any.read();
        if (hdr.probe.drawn < 10 || hdr.probe.drawn > 12) {
            hdr.probe.out_of_range = 1;
        }
        bytes.count(0);
        send_to_port(istd.input_port);
    }
}

control Deparser(packet_out pkt, inout headers_t hdr, in meta_t meta,
                 in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

PNA_NIC(Parser(), Main(), Deparser()) main;
