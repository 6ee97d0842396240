// v1model's meter of packets (execute_meter writes BMv2's colour codes:
// 0 green, 1 yellow, 2 red) and a counter of packets and bytes.
#include <core.p4>
#include <v1model.p4>

header op_t { bit<8> index; bit<8> colour; bit<16> pad; }
struct headers_t { op_t op; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.op); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    meter(4, MeterType.packets) rate;
    counter(4, CounterType.packets_and_bytes) seen;
    apply {
        rate.execute_meter((bit<32>) hdr.op.index, hdr.op.colour);
        seen.count((bit<32>) hdr.op.index);
        sm.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.op); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
