// Extern instances declared at the top level, outside every control:
// one register that ingress writes and egress reads, one counter both use.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> index; bit<8> value; bit<8> seen; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { bit<8> unused; }

register<bit<8>>(4) last;
counter(4, CounterType.packets) hits;

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> before;
        last.read(before, (bit<32>)hdr.op.index);
        last.write((bit<32>)hdr.op.index, before + hdr.op.value);
        hits.count((bit<32>)hdr.op.index);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        last.read(hdr.op.seen, (bit<32>)hdr.op.index);
        hits.count(3);
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
