// A field of `lookahead<S>()` where S is a struct of bit strings (its
// fields lie on the wire one after the other, as in a header), read into a
// variable declared in the state and selected on in that state's
// transition; the whole struct must be in the packet.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header p_t { bit<8> a; bit<8> b; }
struct pair_t { bit<4> hi; bit<4> lo; bit<8> len; }
struct headers_t { eth_t eth; p_t p; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        bit<4> lo = pkt.lookahead<pair_t>().lo;
        transition select(lo) {
            0: skip;
            default: take;
        }
    }
    state take {
        pkt.extract(hdr.p);
        transition accept;
    }
    state skip {
        hdr.eth.type = (bit<16>)pkt.lookahead<pair_t>().len;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error != error.NoError) {
            mark_to_drop(sm);
            exit;
        }
        if (hdr.p.isValid()) {
            hdr.p.b = hdr.p.b + 1;
        }
        sm.egress_spec = 1;
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
