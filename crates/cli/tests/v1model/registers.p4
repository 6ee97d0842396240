// v1model's register<T> (read with an out argument) keeps values across
// packets; counters of packets and of bytes compile and count.
#include <core.p4>
#include <v1model.p4>

header op_t { bit<8> index; bit<32> add; bit<32> total; }
struct headers_t { op_t op; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.op); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<32>>(4) totals;
    counter(4, CounterType.packets) packets;
    counter(4, CounterType.bytes) bytes;
    apply {
        bit<32> total;
        totals.read(total, (bit<32>)hdr.op.index);
        total = total + hdr.op.add;
        totals.write((bit<32>)hdr.op.index, total);
        hdr.op.total = total;
        packets.count((bit<32>)hdr.op.index);
        bytes.count((bit<32>)hdr.op.index);
        sm.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.op); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
