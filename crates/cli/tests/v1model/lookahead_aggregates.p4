// `lookahead<T>()` as a whole value of a struct holding a header stack,
// and of a header holding a struct: the bits ahead fill them in wire
// order, nothing is consumed, and every header in them is valid. A
// packet shorter than the struct is PacketTooShort before anything is set.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<4> kind; bit<4> len; }
struct ahead_t { bit<8> count; tag_t[2] tags; }
struct pair_t { bit<4> hi; bit<4> lo; }
header first_t { pair_t pair; bit<8> rest; }
header out_t { bit<8> kind1; bit<8> lo; bit<8> valid; }
struct headers_t { eth_t eth; out_t res; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        ahead_t a = pkt.lookahead<ahead_t>();
        first_t f = pkt.lookahead<first_t>();
        hdr.res.setValid();
        hdr.res.kind1 = (bit<8>)a.tags[1].kind;
        hdr.res.lo = (bit<8>)f.pair.lo;
        hdr.res.valid = (bit<8>)(bit<1>)a.tags[1].isValid() + (bit<8>)(bit<1>)f.isValid();
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = sm.parser_error == error.NoError ? 9w1 : 9w2; }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.res); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
