// An action profile and a direct counter on one table: the counter's cells
// live in the table's entries, the actions in the profile's members.
#include <core.p4>
#include <v1model.p4>
header op_t { bit<8> first; bit<8> second; bit<16> pad; }
struct headers_t { op_t op; }
struct meta_t { }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.op); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) hits;
    action_profile(8) prof;
    action to_port(bit<9> port, bit<16> pad) { sm.egress_spec = port; hdr.op.pad = pad; }
    table first {
        key = { hdr.op.first : exact; }
        actions = { to_port; NoAction; }
        counters = hits;
        implementation = prof;
    }
    apply { first.apply(); }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.op); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
