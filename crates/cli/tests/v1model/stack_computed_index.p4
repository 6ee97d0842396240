// Header stack elements at indexes computed at run time and never bounded
// by the program: a sum read in a condition, a difference that wraps
// below zero written through an action. The stack's size (5) is not a
// power of two. Out of range writes do nothing (P4 8.18).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header idx_t { bit<8> a; bit<8> b; bit<16> found; }
header item_t { bit<16> v; }
struct headers_t { eth_t eth; idx_t idx; item_t[5] items; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.idx);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action bump(bit<8> at) {
        hdr.items[at].v = hdr.items[at].v + 1;
    }
    apply {
        if (hdr.items[hdr.idx.a + hdr.idx.b].v > 0x100) {
            hdr.idx.found = hdr.items[hdr.idx.a + hdr.idx.b].v;
        }
        bump(hdr.idx.a - hdr.idx.b);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.idx); pkt.emit(hdr.items); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
