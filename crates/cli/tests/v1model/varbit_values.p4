// varbit values beyond extract and emit: three varbit fields in one packet
// (two of one width, one of another, any of them empty), copied through a
// local variable and a metadata struct and back (assignment carries the
// size), == and != on varbits whose bytes agree but whose sizes differ, ==
// on whole headers with a varbit, minSizeInBytes and maxSizeInBits of such
// a header, and a size beyond the maximum (HeaderTooShort reaches ingress).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header len_t { bit<8> a_len; bit<8> c_len; bit<8> b_len; bit<8> flags; }
header a_t { bit<8> kind; varbit<24> data; }
header b_t { bit<16> tag; varbit<48> data; }
struct meta_t { bit<8> n; varbit<24> saved; }
struct headers_t { eth_t eth; len_t len; a_t a; a_t c; b_t b; a_t a2; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.len);
        pkt.extract(hdr.a, (bit<32>)hdr.len.a_len * 8);
        pkt.extract(hdr.c, (bit<32>)hdr.len.c_len * 8);
        pkt.extract(hdr.b, (bit<32>)hdr.len.b_len * 8);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    varbit<24> tmp;
    apply {
        sm.egress_spec = 1;
        bit<8> f = 0;
        if (sm.parser_error == error.HeaderTooShort) { f = f | 0x80; }
        if (hdr.a.data == hdr.c.data) { f = f | 1; }
        if (hdr.a.data != hdr.c.data) { f = f | 2; }
        // Swap a's and c's varbits through the metadata and a local.
        meta.saved = hdr.a.data;
        tmp = hdr.c.data;
        hdr.c.data = meta.saved;
        hdr.a.data = tmp;
        if (hdr.a == hdr.c) { f = f | 4; }
        hdr.a2.setValid();
        hdr.a2.kind = (bit<8>)hdr.b.minSizeInBytes();
        hdr.a2.data = meta.saved;
        if (hdr.a2.data == hdr.c.data) { f = f | 8; }
        hdr.len.flags = f;
        hdr.eth.type = (bit<16>)hdr.b.maxSizeInBits();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.len);
        pkt.emit(hdr.a);
        pkt.emit(hdr.c);
        pkt.emit(hdr.b);
        pkt.emit(hdr.a2);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
