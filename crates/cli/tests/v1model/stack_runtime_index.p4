// Header stack elements chosen at run time, read and written from a
// control and an action, with indexes inside and outside the stack, and
// `last` after extracts in a parser loop.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header idx_t { bit<8> read; bit<8> write; bit<8> value; bit<8> result; }
header item_t { bit<8> v; }
struct headers_t { eth_t eth; idx_t idx; item_t[4] items; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.idx);
        transition items;
    }
    state items {
        pkt.extract(hdr.items.next);
        transition select(hdr.items.last.v) {
            0: accept;
            default: items;
        }
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action put(bit<8> at, bit<8> value) {
        hdr.items[at].v = value;
    }
    apply {
        if (hdr.idx.read < 4) {
            hdr.idx.result = hdr.items[hdr.idx.read].v;
        } else {
            hdr.idx.result = 0xee;
        }
        if (hdr.idx.write < 4) {
            put(hdr.idx.write, hdr.idx.value);
        }
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
