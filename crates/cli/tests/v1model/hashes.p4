// v1model's hash over field lists: the fields concatenated as one bit
// string (a 72-bit field, odd widths), each algorithm against its
// check value, and base + hash % max.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<72> data;   // "123456789", the CRC catalogue's check input
    bit<32> crc32;
    bit<16> crc16;
    bit<16> csum16;
    bit<16> xor16;
    bit<16> ranged;
    bit<4>  a;
    bit<12> b;
    bit<16> identity;
}
struct headers_t { h_t h; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hash(hdr.h.crc32, HashAlgorithm.crc32, 32w0, { hdr.h.data }, 64w0);
        hash(hdr.h.crc16, HashAlgorithm.crc16, 16w0, { hdr.h.data }, 32w65536);
        hash(hdr.h.csum16, HashAlgorithm.csum16, 16w0, { hdr.h.data }, 32w0);
        hash(hdr.h.xor16, HashAlgorithm.xor16, 16w0, { hdr.h.data }, 32w0);
        hash(hdr.h.ranged, HashAlgorithm.crc16, 16w100, { hdr.h.data }, 32w10);
        hash(hdr.h.identity, HashAlgorithm.identity, 16w0, { hdr.h.b, hdr.h.a }, 32w0);
        sm.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
