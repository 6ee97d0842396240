// v1model forwarding as BMv2 does it: egress_spec defaults to 0, the
// drop port 511 drops after ingress and after egress, egress sees
// egress_port = egress_spec, and a parser error reaches ingress.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> port; bit<16> seen; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x1235: bad;
            default: op;
        }
    }
    state bad { verify(false, error.ParserInvalidArgument); transition accept; }
    state op { pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.PacketTooShort) {
            // Out of port 7 with the error visible in the source address.
            hdr.eth.src = 0xEEEE00000001;
            sm.egress_spec = 7;
        } else if (sm.parser_error == error.ParserInvalidArgument) {
            hdr.eth.src = 0xEEEE00000002;
            sm.egress_spec = 6;
        } else if (hdr.op.op == 1) {
            sm.egress_spec = (bit<9>)hdr.op.port;
        } else if (hdr.op.op == 2) {
            mark_to_drop(sm);
        } else if (hdr.op.op == 4) {
            sm.egress_spec = (bit<9>)hdr.op.port;
        } else if (hdr.op.op == 5) {
            // Dropped, then un-dropped: the last write wins, as on BMv2.
            mark_to_drop(sm);
            sm.egress_spec = 2;
        }
        // op 3 and others: egress_spec keeps its default, port 0.
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.op.isValid()) {
            hdr.op.seen = (bit<16>)sm.egress_port;
            if (hdr.op.op == 4) {
                mark_to_drop(sm);
            }
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
