// Slices of a lookahead wider than 64 bits: the EtherType 12 bytes into
// a 120-bit look, and 7 bits that start inside the first byte. All 15
// bytes must be there: a 14-byte frame is PacketTooShort, seen in ingress.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header extra_t { bit<8> v; }
struct headers_t { eth_t eth; extra_t extra; }
struct meta_t { bit<16> type; bit<7> bits; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        meta.type = pkt.lookahead<bit<120>>()[23:8];
        meta.bits = pkt.lookahead<bit<120>>()[115:109];
        pkt.extract(hdr.eth);
        pkt.extract(hdr.extra);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error != error.NoError) {
            sm.egress_spec = 3;
        } else {
            hdr.eth.src[6:0] = meta.bits;
            sm.egress_spec = meta.type == 0x88b5 ? 9w2 : 9w1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.extra); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
