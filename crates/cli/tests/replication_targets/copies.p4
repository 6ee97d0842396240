// Copies as BMv2 makes them, for every target that shows them: a group
// sends one copy per member through egress, which writes the copy's
// port, replica id and instance type into it and changes the copy of
// replica 2; an I2E clone runs egress as instance 1, which cuts it to
// 18 bytes, while the original leaves whole.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> arg; bit<16> port; bit<16> rid; bit<32> instance; }
struct headers_t { eth_t eth; op_t op; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.op.op == 1) {
            sm.mcast_grp = (bit<16>)hdr.op.arg;
        } else if (hdr.op.op == 2) {
            sm.egress_spec = 1;
            clone(CloneType.I2E, (bit<32>)hdr.op.arg);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.op.port = (bit<16>)sm.egress_port;
        hdr.op.rid = sm.egress_rid;
        hdr.op.instance = sm.instance_type;
        hdr.eth.src[7:0] = (bit<8>)sm.instance_type;
        if (sm.egress_rid == 2) {
            hdr.eth.dst = 0xffffffffffff;
        }
        if (sm.instance_type == 1) {
            truncate(18);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.op); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
