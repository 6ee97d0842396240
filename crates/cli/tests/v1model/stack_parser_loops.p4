// Parser loops through a stack's `next` that the kernel verifier must see
// end: a 12-deep stack filled in a loop after a `verify` (clang then reads
// the stack's index from memory at the loop's entry), a second stack
// filled by a sub-parser in its own loop, and an element read in ingress
// at an index the packet gives. A full stack rejects with
// StackOutOfBounds, which ingress sees in parser_error.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<7> value; bit<1> last; }
header pick_t { bit<8> index; bit<8> got; bit<8> depth; bit<8> error_seen; }
struct headers_t { eth_t eth; pick_t pick; tag_t[12] tags; tag_t[3] more; }
struct meta_t { }

parser More(packet_in pkt, inout tag_t[3] more) {
    state start {
        pkt.extract(more.next);
        transition select(more.last.last) { 0: start; default: accept; }
    }
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    More() more;
    state start {
        pkt.extract(hdr.eth);
        verify(hdr.eth.type != 0, error.NoMatch);
        pkt.extract(hdr.pick);
        transition select(hdr.eth.type) { 0x8801: tags; 0x8802: other; default: accept; }
    }
    state tags {
        pkt.extract(hdr.tags.next);
        transition select(hdr.tags.last.last) { 0: tags; default: other; }
    }
    state other {
        more.apply(pkt, hdr.more);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) {
            hdr.pick.error_seen = 1;
        }
        bit<8> depth = 0;
        if (hdr.tags[11].isValid()) { depth = 12; }
        else if (hdr.tags[4].isValid()) { depth = 5; }
        else if (hdr.tags[0].isValid()) { depth = 1; }
        hdr.pick.depth = depth;
        if (hdr.pick.index < 12 && hdr.tags[hdr.pick.index].isValid()) {
            hdr.pick.got = (bit<8>)hdr.tags[hdr.pick.index].value;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.pick); pkt.emit(hdr.tags); pkt.emit(hdr.more); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
