// Frames shorter than an Ethernet header, as BMv2 tests send them: the
// kernel will not take them, the user-space target must. A parser that runs
// out of bytes raises PacketTooShort, keeps what it extracted before, and
// ingress runs (v1model drops nothing for a parser error).
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> code; }
header short_t { bit<16> a; }
header long_t { bit<32> b; }
struct headers_t { tag_t tag; short_t s; long_t l; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.s); pkt.extract(hdr.l); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.tag.setValid();
        if (sm.parser_error == error.PacketTooShort) {
            hdr.tag.code = hdr.s.isValid() ? 8w0xE2 : 8w0xE1;
            sm.egress_spec = 3;
        } else {
            hdr.tag.code = 0;
            hdr.s.a = hdr.s.a + 1;
            sm.egress_spec = 1;
        }
        if (hdr.s.isValid() && hdr.s.a == 0xdead) {
            mark_to_drop(sm);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.tag); pkt.emit(hdr.s); pkt.emit(hdr.l); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
