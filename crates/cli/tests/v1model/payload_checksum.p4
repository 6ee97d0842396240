// Checksums over fields and the payload (verify_checksum_with_payload,
// update_checksum_with_payload): the fields end with a varbit, so they
// end on an even or an odd byte at run time, and the payload has an even
// or odd length, or none.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header n_t { bit<8> len; bit<8> err; }
header x_t { bit<8> a; bit<16> csum; varbit<32> opts; }
struct meta_t { bit<8> unused; }
struct headers_t { eth_t eth; n_t n; x_t x; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.n);
        pkt.extract(hdr.x, (bit<32>)hdr.n.len * 8);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum_with_payload(hdr.x.isValid(), { hdr.x.a, hdr.x.opts },
                                     hdr.x.csum, HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.n.err = (bit<8>)sm.checksum_error;
        hdr.x.a = hdr.x.a + 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum_with_payload(hdr.x.isValid(), { hdr.x.a, hdr.x.opts },
                                     hdr.x.csum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.n); pkt.emit(hdr.x); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
