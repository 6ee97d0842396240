// A stack of header unions filled through `next.member` (each extract
// takes the next element, past the last one StackOutOfBounds reaches
// ingress) and emitted whole by `emit(hdr)`: each element's valid member.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> kind; }
header one_t { bit<8> v; }
header two_t { bit<16> v; }
header_union opt_u { one_t one; two_t two; }
struct headers_t { eth_t eth; opt_u[2] opts; tag_t tag; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition next_opt; }
    state next_opt {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.kind) {
            1: one;
            2: two;
            default: accept;
        }
    }
    state one { pkt.extract(hdr.opts.next.one); transition next_opt; }
    state two { pkt.extract(hdr.opts.next.two); transition next_opt; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        // The tag left valid is the last one read; it goes last.
        hdr.tag.kind = sm.parser_error == error.StackOutOfBounds ? 8w0xee : 8w0;
        if (hdr.opts[1].one.isValid()) {
            hdr.opts[1].one.v = hdr.opts[1].one.v + 1;
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
