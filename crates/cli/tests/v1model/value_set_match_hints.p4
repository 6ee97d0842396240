// A value set whose members carry `@match(ternary)` and `@match(lpm)`:
// hints on how to implement the set, matched exactly as BMv2 does. The
// set starts empty, so only the masked case after it sends frames on.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> a; bit<8> b; }
struct headers_t { eth_t eth; tag_t tag; }
struct meta_t { bit<8> unused; }
struct tag_key_t {
    @match(ternary) bit<8> a;
    @match(lpm) bit<8> b;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    value_set<tag_key_t>(4) known;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.tag);
        transition select(hdr.tag.a, hdr.tag.b) {
            known: marked;
            (0x10 &&& 0xf0, _): marked;
            default: accept;
        }
    }
    state marked { hdr.eth.type = 0xffff; transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
