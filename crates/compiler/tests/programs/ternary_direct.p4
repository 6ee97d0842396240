// v1model: direct counters and meters on ternary and range tables (a cells
// array per table, each rule's slot named in its bucket head).
#include <core.p4>
#include <v1model.p4>

header op_t { bit<8> first; bit<8> second; bit<8> colour; bit<8> pad; }
struct headers_t { op_t op; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.op); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) hits;
    direct_meter<bit<8>>(MeterType.packets) rate;

    action to_port(bit<9> port) { sm.egress_spec = port; }
    action colour(bit<8> pad) {
        rate.read(hdr.op.colour);
        hdr.op.pad = pad;
    }

    table classify {
        key = { hdr.op.first : ternary; hdr.op.second : range; }
        actions = { to_port; NoAction; }
        counters = hits;
        default_action = to_port(1);
    }
    table police {
        key = { hdr.op.second : ternary; }
        actions = { colour; NoAction; }
        meters = rate;
    }
    apply {
        classify.apply();
        police.apply();
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.op); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
