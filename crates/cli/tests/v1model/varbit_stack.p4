// A header stack whose elements have a varbit field: type-length-value
// options extracted into `opts.next` with each size read ahead, compared
// element to element, swapped as whole headers (the varbit's size goes
// along), and a size beyond the maximum in an element (HeaderTooShort).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header flags_t { bit<8> f; }
header tlv_t { bit<8> kind; bit<8> len; varbit<32> value; }
struct meta_t { bit<8> unused; }
struct headers_t { eth_t eth; flags_t flags; tlv_t[3] opts; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.flags);
        transition option;
    }
    state option {
        pkt.extract(hdr.opts.next, (bit<32>)pkt.lookahead<bit<16>>()[7:0] * 8);
        transition select(hdr.opts.last.kind) {
            0: accept;
            default: option;
        }
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.flags.f = 0;
        if (sm.parser_error == error.HeaderTooShort) {
            hdr.flags.f = 0x80;
        }
        if (hdr.opts[1].isValid() && hdr.opts[0].value == hdr.opts[1].value) {
            hdr.flags.f = hdr.flags.f | 1;
        }
        tlv_t first = hdr.opts[0];
        hdr.opts[0] = hdr.opts[1];
        hdr.opts[1] = first;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
