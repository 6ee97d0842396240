// A deparser over a stack of 7 headers plus two more: more emits than
// the deparser keeps a flag variable of its own for, so their record is
// packed into bits. Ingress pushes a tag in front, or pops one, so the
// headers are rebuilt, not written in place.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> v; }
header end_t { bit<16> marker; }
struct headers_t { eth_t eth; tag_t[7] tags; end_t end; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.tags.next);
        pkt.extract(hdr.tags.next);
        pkt.extract(hdr.end);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.eth.type == 0x0001) {
            hdr.tags.push_front(1);
            hdr.tags[0].setValid();
            hdr.tags[0].v = 0xaa;
        } else {
            hdr.tags.pop_front(1);
        }
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tags); pkt.emit(hdr.end); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
