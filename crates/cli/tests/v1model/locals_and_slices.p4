// A header stack that only a local variable has (its C type must still be
// declared) and slices of slices written to (`x[11:4][5:2] = v` writes
// bits 9..6 of x), on a local and on a header field.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header pair_t { bit<16> x; bit<16> y; }
struct headers_t { eth_t eth; pair_t p; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.p); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    pair_t[2] saved;
    bit<16> local = 16w0xffff;
    apply {
        saved[0] = hdr.p;
        saved[1].setValid();
        saved[1].x = hdr.p.y;
        saved[1].y = hdr.p.x;
        local[11:4][5:2] = 4w0;
        hdr.p.x = saved[1].x;
        hdr.p.x[15:8][7:4] = 4w0xa;
        hdr.p.y = saved[0].isValid() ? local : 16w0;
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.p); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
