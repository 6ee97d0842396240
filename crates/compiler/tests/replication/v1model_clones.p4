// v1model's clones at TC and XDP: an I2E clone in a pass that may also
// resubmit, and an E2E clone keeping a field list.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { @field_list(0) bit<8> kept; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        meta.kept = hdr.eth.dst[7:0];
        if (hdr.eth.type == 1) {
            clone_preserving_field_list(CloneType.I2E, 5, 0);
        }
        if (hdr.eth.type == 2 && sm.instance_type == 0) {
            resubmit_preserving_field_list(0);
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0 && hdr.eth.type == 3) {
            hdr.eth.src = 0xcafe;
            clone_preserving_field_list(CloneType.E2E, 6, 0);
        }
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
