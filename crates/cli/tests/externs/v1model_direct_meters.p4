// v1model's direct meter: the table's `meters` property runs the entry's
// meter on every hit, whatever the action; `read(colour)` gives BMv2's
// code of that run (0 green, 1 yellow, 2 red).
#include <core.p4>
#include <v1model.p4>

header op_t { bit<8> key; bit<8> colour; bit<16> pad; }
struct headers_t { op_t op; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.op); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_meter<bit<8>>(MeterType.packets) rate;

    action colour(bit<9> port) {
        rate.read(hdr.op.colour);
        sm.egress_spec = port;
    }
    action quiet(bit<9> port) { sm.egress_spec = port; }

    table police {
        key = { hdr.op.key : exact; }
        actions = { colour; quiet; NoAction; }
        meters = rate;
        default_action = colour(1);
    }
    apply { police.apply(); }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.op); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
