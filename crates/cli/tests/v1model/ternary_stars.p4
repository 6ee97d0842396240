// Ternary keys as BMv2's STF writes them: `*` hex or binary digits are
// don't-care digits, and a header stack element is named `tags$1`.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<16> v; bit<4> a; bit<4> b; }
struct headers_t { eth_t eth; tag_t[2] tags; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.tags.next);
        pkt.extract(hdr.tags.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table t {
        key = { hdr.tags[1].v : ternary; hdr.tags[0].a : ternary; }
        actions = { fwd; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
