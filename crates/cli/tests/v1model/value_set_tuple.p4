// A value set matched against three select keys at once, its element a
// struct with a nested struct; the cases after it still match in order.
// No member is added (the set is empty): only the other cases can match.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> a; bit<4> b; bit<4> c; bit<8> seen; }
struct pair_t { bit<4> b; bit<4> c; }
struct member_t { bit<8> a; pair_t pair; }
struct headers_t { eth_t eth; tag_t tag; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    value_set<member_t>(8) known;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.tag);
        transition select(hdr.tag.a, hdr.tag.b, hdr.tag.c) {
            known: in_set;
            (0x11, 2, 3): exact_case;
            (0x11, _, 3): wild_case;
            default: accept;
        }
    }
    state in_set { hdr.tag.seen = 1; transition accept; }
    state exact_case { hdr.tag.seen = 2; transition accept; }
    state wild_case { hdr.tag.seen = 3; transition accept; }
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
