// E2E clones, where at XDP the packet's own egress runs in the XDP
// program and its clones' egress in the devmap program. Ingress sends
// every packet to port 2. The original's egress (op bits: 1 clone E2E to
// `session` keeping field list 1, 2 drop) writes src and the kept field
// before it clones; a clone's egress writes what it saw (instance type,
// the kept and the reset field, its port) and keeps the src the
// original's egress left.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t {
    bit<8> op; bit<8> session; bit<8> instance; bit<8> kept; bit<8> lost; bit<8> port;
}
struct headers_t { eth_t eth; op_t op; }
struct meta_t {
    @field_list(1) bit<8> kept;
    bit<8> lost;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        meta.kept = 0x4b;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 2) {
            hdr.op.instance = (bit<8>)sm.instance_type;
            hdr.op.kept = meta.kept;
            hdr.op.lost = meta.lost;
            hdr.op.port = (bit<8>)sm.egress_port;
        } else {
            hdr.eth.src = 0xcafe;
            meta.kept = meta.kept + 1;
            meta.lost = 0x77;
            hdr.op.instance = (bit<8>)sm.instance_type;
            if (hdr.op.op & 1 != 0) {
                clone_preserving_field_list(CloneType.E2E, (bit<32>)hdr.op.session, 1);
            }
            if (hdr.op.op & 2 != 0) {
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
