// v1model's passes with copies (BMv2's order and values): an I2E clone
// in a pass that resubmits; a multicast from a recirculated pass and
// from a resubmitted one. Ingress counts its passes in
// `in_count`, egress counts itself and writes instance_type, egress_rid
// and egress_port. Resubmission and I2E clones take the packet as
// received; recirculation what the deparser wrote.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }

// kind 1: clone I2E to session 5 and resubmit, then out of `port`.
// kind 2: out of `port`, egress recirculating, then multicast to
// `group`. kind 3: resubmit, then multicast to `group`.
header cmd_t {
    bit<8> kind;
    bit<8> port;
    bit<16> group;
    bit<8> in_count;
    bit<8> eg_count;
    bit<8> itype;
    bit<16> rid;
    bit<8> eg_port;
}

struct headers_t { eth_t eth; cmd_t cmd; }
struct meta_t { @field_list(0) bit<8> kept; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.cmd);
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.cmd.in_count = hdr.cmd.in_count + 1;
        sm.egress_spec = (bit<9>) hdr.cmd.port;
        bool first = sm.instance_type == 0;
        if (hdr.cmd.kind == 1 && first) {
            clone_preserving_field_list(CloneType.I2E, 5, 0);
            resubmit_preserving_field_list(0);
        } else if (hdr.cmd.kind == 3 && first) {
            resubmit_preserving_field_list(0);
        } else if (hdr.cmd.kind != 1 && !first) {
            sm.mcast_grp = hdr.cmd.group;
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.cmd.eg_count = hdr.cmd.eg_count + 1;
        hdr.cmd.itype = (bit<8>) sm.instance_type;
        hdr.cmd.rid = sm.egress_rid;
        hdr.cmd.eg_port = (bit<8>) sm.egress_port;
        if (hdr.cmd.kind == 2 && sm.instance_type == 0) {
            recirculate_preserving_field_list(0);
        }
    }
}

control C(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.cmd);
    }
}

V1Switch(P(), V(), I(), E(), C(), D()) main;
