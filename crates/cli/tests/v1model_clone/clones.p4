// v1model clones as BMv2's simple_switch makes them. I2E (op 1, op 2):
// at the end of ingress, a copy of the packet as received goes to each
// member of the session, parsed again, with instance_type 1 and the
// metadata reset but the chosen field list, read at the end of ingress.
// E2E (op 3, op 4): at the end of egress, a copy with the headers egress
// left, instance_type 2, the metadata reset but the field list; made
// before the drop port, so a packet egress drops still clones (op 4).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> session; }
// What egress saw: the kept and reset fields, instance type, port.
header probe_t { bit<8> kept; bit<8> lost; bit<8> instance; bit<8> port; }
struct meta_t {
    @field_list(0, 2) bit<8> kept;
    bit<8> lost;
}
struct headers_t { eth_t eth; op_t op; probe_t probe; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.op);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.op.op == 1) {
            clone_preserving_field_list(CloneType.I2E, (bit<32>)hdr.op.session, 0);
        } else if (hdr.op.op == 2) {
            clone(CloneType.I2E, (bit<32>)hdr.op.session);
        }
        // The clone is of the packet received: this change is the original's.
        hdr.eth.dst = 0xffffffffffff;
        meta.kept = 0x5a;
        meta.lost = 0x77;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.probe.kept = meta.kept;
        hdr.probe.lost = meta.lost;
        hdr.probe.instance = (bit<8>)sm.instance_type;
        hdr.probe.port = (bit<8>)sm.egress_port;
        if (sm.instance_type == 0 && hdr.op.op >= 3) {
            hdr.eth.src = 0xeeeeeeeeeeee;
            clone_preserving_field_list(CloneType.E2E, (bit<32>)hdr.op.session, 2);
            meta.kept = 0x66;
            if (hdr.op.op == 4) {
                mark_to_drop(sm);
            }
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); pkt.emit(hdr.probe); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
