// Copies at XDP, where the kernel broadcasts the frame to a devmap and
// each copy's egress must find which copy it is. Ingress (op bits: 1
// multicast to `group`, 2 clone I2E to `session` keeping field list 0,
// 4 drop) always sends the packet itself to port 1, its ingress port,
// and marks the original's dst; egress writes what it saw (port, rid,
// instance type, the kept and the reset field) into the packet and drops
// replica id 99.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t {
    bit<8> op; bit<8> group; bit<8> session; bit<8> port;
    bit<16> rid; bit<8> instance; bit<8> kept; bit<8> lost;
}
struct headers_t { eth_t eth; op_t op; }
struct meta_t {
    @field_list(0) bit<8> kept;
    bit<8> lost;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.kept = 0x4b;
        meta.lost = 0x1c;
        sm.egress_spec = 1;
        if (hdr.op.op & 1 != 0) {
            sm.mcast_grp = (bit<16>)hdr.op.group;
        }
        if (hdr.op.op & 2 != 0) {
            clone_preserving_field_list(CloneType.I2E, (bit<32>)hdr.op.session, 0);
        }
        if (hdr.op.op & 4 != 0) {
            mark_to_drop(sm);
        }
        // Not what a clone sees: it is the packet as received.
        hdr.eth.dst = 0xffffffffffff;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.op.port = (bit<8>)sm.egress_port;
        hdr.op.rid = sm.egress_rid;
        hdr.op.instance = (bit<8>)sm.instance_type;
        hdr.op.kept = meta.kept;
        hdr.op.lost = meta.lost;
        if (sm.egress_rid == 99) {
            mark_to_drop(sm);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
