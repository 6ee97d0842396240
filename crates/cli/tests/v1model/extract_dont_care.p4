// `extract<H>(_)`: the parser reads past a header it does not keep; the
// deparser emits what follows it, not the skipped bytes.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header skipped_t { bit<24> unused; }
header tail_t { bit<16> value; }
struct headers_t { eth_t eth; tail_t tail; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x1234: skip;
            default: accept;
        }
    }
    state skip {
        pkt.extract<skipped_t>(_);
        pkt.extract(hdr.tail);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = hdr.tail.isValid() ? (bit<9>)hdr.tail.value : 9w1;
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
