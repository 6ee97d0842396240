// Strips a 4-byte header when its value is 1: a 9-byte frame leaves as
// 5 bytes, which no XDP program can produce (XDP keeps at least an
// Ethernet header); one left whole keeps its 9 bytes and runs anywhere.
#include <core.p4>
#include <v1model.p4>

header a_t { bit<32> a; }
header b_t { bit<40> b; }
struct headers_t { a_t a; b_t b; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.a); pkt.extract(hdr.b); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 0;
        if (hdr.a.a == 1) {
            hdr.a.setInvalid();
        }
        hdr.b.b = hdr.b.b + 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.a); pkt.emit(hdr.b); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
