// A varbit extract that runs out of packet: PacketTooShort reaches
// ingress and the header stays invalid, as on BMv2 (its fixed part was read
// before the size was known).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> a; bit<8> b; bit<8> len; }
header opt_t { bit<8> kind; varbit<64> data; }
struct headers_t { eth_t eth; op_t op; opt_t opt; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.op);
        pkt.extract(hdr.opt, (bit<32>)hdr.op.len * 8);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.op.b = (bit<8>)(bit<1>)hdr.opt.isValid();
        hdr.op.a = (bit<8>)(sm.parser_error == error.PacketTooShort ? 1w1 : 1w0);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); pkt.emit(hdr.opt); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
