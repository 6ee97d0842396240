// v1model's direct counters: a table's `counters` property counts every
// packet an entry matches, whatever the action (`count()` in an action
// adds nothing). Two tables, each with its own counter, share nothing;
// misses count nowhere.
#include <core.p4>
#include <v1model.p4>

header op_t { bit<8> first; bit<8> second; bit<16> pad; }
struct headers_t { op_t op; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.op); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) first_hits;
    direct_counter(CounterType.packets) second_hits;

    action to_port(bit<9> port) { sm.egress_spec = port; }
    action to_port_counting(bit<9> port) {
        first_hits.count();
        sm.egress_spec = port;
    }
    action mark(bit<16> pad) { hdr.op.pad = pad; }

    table first {
        key = { hdr.op.first : exact; }
        actions = { to_port; to_port_counting; NoAction; }
        counters = first_hits;
        default_action = to_port(1);
    }
    table second {
        key = { hdr.op.second : exact; }
        actions = { mark; NoAction; }
        counters = second_hits;
    }
    apply {
        first.apply();
        second.apply();
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.op); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
