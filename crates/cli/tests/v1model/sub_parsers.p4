// Parsers applied from parser states (P4_16 sub-parsers): one type with
// two instances of different constructor arguments, an instance applied
// in two states, a call followed by statements in the same state, a
// parser applied by its type name that applies a sub-parser of its own,
// and a sub-parser's reject ending the whole parse.
#include <core.p4>
#include <v1model.p4>

error { BadTag }

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> kind; bit<8> val; }
struct headers_t { eth_t eth; tag_t t1; tag_t t2; tag_t t3; }
struct meta_t { bit<8> count; bit<8> sum; bit<8> last_kind; }

// One tag; a kind with the top bit set adds its value and `bias` to the sum.
parser TagParser(packet_in pkt, out tag_t tag, inout meta_t meta)(bit<8> bias) {
    bit<8> seen = 0;
    state start {
        pkt.extract(tag);
        seen = seen + 1;
        meta.count = meta.count + seen;
        transition select(tag.kind) {
            0xff: refuse;
            0x80 &&& 0x80: big;
            default: accept;
        }
    }
    state big {
        meta.sum = meta.sum + tag.val + bias;
        transition accept;
    }
    state refuse {
        verify(false, error.BadTag);
        transition accept;
    }
}

parser LastTag(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    TagParser(8w7) inner;
    state start {
        inner.apply(pkt, hdr.t3, meta);
        meta.last_kind = hdr.t3.kind;
        transition accept;
    }
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    TagParser(8w1) small;
    TagParser(8w100) large;
    state start {
        pkt.extract(hdr.eth);
        meta.count = 0;
        meta.sum = 0;
        small.apply(pkt, hdr.t1, meta);
        meta.last_kind = hdr.t1.kind;
        transition select(hdr.eth.type) {
            0x0002: two;
            0x0003: three;
            default: accept;
        }
    }
    state two {
        large.apply(pkt, hdr.t2, meta);
        transition accept;
    }
    state three {
        small.apply(pkt, hdr.t2, meta);
        LastTag.apply(pkt, hdr, meta);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error != error.NoError) {
            mark_to_drop(sm);
            exit;
        }
        hdr.eth.src[23:16] = meta.count;
        hdr.eth.src[15:8] = meta.sum;
        hdr.eth.src[7:0] = meta.last_kind;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.t1);
        pkt.emit(hdr.t2);
        pkt.emit(hdr.t3);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
