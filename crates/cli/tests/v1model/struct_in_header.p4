// Structs inside a header (P4 7.2.7): two levels deep, with a bool, not
// starting on a byte boundary. A member is a table key and is written by
// an action; the struct is read whole into metadata and assigned whole.
#include <core.p4>
#include <v1model.p4>

struct flags_t { bool urgent; bit<3> prio; }
struct tag_t { bit<4> kind; flags_t flags; bit<16> id; }
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tagged_t { bit<4> ver; tag_t tag; bit<4> pad; bit<32> count; }
struct headers_t { eth_t eth; tagged_t t; }
struct meta_t { tag_t saved; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_prio(bit<3> p) { hdr.t.tag.flags.prio = p; }
    table by_kind {
        key = { hdr.t.tag.kind : exact; }
        actions = { set_prio; NoAction; }
        const entries = { 5 : set_prio(7); }
        default_action = NoAction();
    }
    apply {
        meta.saved = hdr.t.tag;
        by_kind.apply();
        if (hdr.t.tag.flags.urgent) {
            hdr.t.count = hdr.t.count + 1;
            sm.egress_spec = 2;
        } else {
            sm.egress_spec = 1;
        }
        if (hdr.t.tag.id == 0xffff) {
            hdr.t.tag = { 0xa, { true, 1 }, 0x1234 };
        }
        hdr.t.pad = meta.saved.kind;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.t); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
