// `verify` with an error chosen at run time: a failed check reports the
// error the variable holds; a passed one reports nothing.
#include <core.p4>
#include <v1model.p4>

error { BadTag, BadLength }

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header t_t { bit<8> kind; bit<8> ok; }
struct headers_t { eth_t eth; t_t t; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.t);
        error e = error.BadLength;
        if (hdr.t.kind == 1) {
            e = error.BadTag;
        }
        verify(hdr.t.ok == 1, e);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.BadTag) {
            sm.egress_spec = 2;
        } else if (sm.parser_error == error.BadLength) {
            sm.egress_spec = 3;
        } else {
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.t); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
