// Arrays of non-headers (P4_16 1.2.4 `T[N]`): of bit strings in a header,
// extracted and emitted in place between other fields; of structs in the
// metadata; a local array of bools. Indexes are constants.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tags_t { bit<4> count; bit<4>[3] nibbles; bit<16>[2] words; bit<8> last; }
struct pair_t { bit<8> lo; bit<8> hi; }
struct headers_t { eth_t eth; tags_t tags; }
struct meta_t { pair_t[2] pairs; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.tags); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bool[2] big;
        big[0] = hdr.tags.words[0] > 0x1000;
        big[1] = hdr.tags.words[1] > 0x1000;
        meta.pairs[1].lo = hdr.tags.words[1][7:0];
        meta.pairs[1].hi = hdr.tags.words[1][15:8];
        // Swap the two words' bytes through the structs; rotate nibbles.
        hdr.tags.words[1] = hdr.tags.words[0];
        hdr.tags.words[0] = meta.pairs[1].lo ++ meta.pairs[1].hi;
        bit<4> first = hdr.tags.nibbles[0];
        hdr.tags.nibbles[0] = hdr.tags.nibbles[1];
        hdr.tags.nibbles[1] = hdr.tags.nibbles[2];
        hdr.tags.nibbles[2] = first;
        hdr.tags.last = big[0] ? 8w1 : (big[1] ? 8w2 : 8w0);
        sm.egress_spec = (bit<9>)hdr.tags.count;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tags); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
