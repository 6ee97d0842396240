// Multicast as BMv2 does it: a non-zero mcast_grp after ingress sends one
// copy per group member through egress, each with its own egress_port,
// egress_rid and instance_type (5); the original goes nowhere. Egress
// writes what it saw into the packet, drops the copy with replica id 99
// and grows the copy with replica id 7 by a tag header, so copies of one
// packet differ in content and in length.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header op_t { bit<8> op; bit<8> arg; bit<16> port; bit<16> rid; bit<32> instance; }
header tag_t { bit<32> value; }
struct headers_t { eth_t eth; tag_t tag; op_t op; }
struct meta_t { bit<8> from_ingress; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.op); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.from_ingress = 0xAB;
        if (hdr.op.op == 1) {
            sm.mcast_grp = (bit<16>)hdr.op.arg;
        } else if (hdr.op.op == 2) {
            sm.egress_spec = (bit<9>)hdr.op.arg;
        } else if (hdr.op.op == 3) {
            // A group, then a drop: mark_to_drop wins.
            sm.mcast_grp = (bit<16>)hdr.op.arg;
            mark_to_drop(sm);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.op.port = (bit<16>)sm.egress_port;
        hdr.op.rid = sm.egress_rid;
        hdr.op.instance = sm.instance_type;
        hdr.eth.src[7:0] = meta.from_ingress;
        if (sm.egress_rid == 99) {
            mark_to_drop(sm);
        }
        if (sm.egress_rid == 7) {
            hdr.tag.setValid();
            hdr.tag.value = 0x7A6;
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); pkt.emit(hdr.op); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
