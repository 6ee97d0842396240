// v1model resubmission as BMv2's simple_switch does it: ingress runs again
// on the packet as it was received, with instance_type 6 and every
// metadata field reset but those of the field list chosen, which keep
// their values from the end of ingress. Resubmission comes before the
// drop port; egress runs once, on the last pass.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
// What the last pass saw: the kept fields, the reset one, the instance
// type, and how many times egress ran.
header probe_t { bit<8> a; bit<8> b; bit<16> c; bit<8> instance; bit<8> egresses; }
struct inner_t { @field_list(0) bit<16> nested; bit<8> plain; }
struct meta_t {
    @field_list(0) bit<8> a;
    bit<8> b;
    @field_list(1) bit<16> c;
    inner_t inner;
    @field_list(0, 1) bit<48> wide;
}
struct headers_t { eth_t eth; probe_t probe; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.probe); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            // The header change is lost: the resubmitted packet is the one received.
            hdr.eth.dst = 0xffffffffffff;
            if (hdr.eth.type == 0x1235) {
                resubmit_preserving_field_list(1);
            } else {
                resubmit_preserving_field_list(0);
            }
            // Values at the end of ingress are the ones kept, not those at the call.
            meta.a = 0xa1;
            meta.b = 0xb1;
            meta.c = 0xc1c1;
            meta.inner.nested = 0x0e0e;
            meta.inner.plain = 0x77;
            meta.wide = 0x123456789abc;
            // Resubmission comes before the drop port.
            mark_to_drop(sm);
        } else {
            hdr.probe.a = meta.a;
            hdr.probe.b = meta.b;
            hdr.probe.c = meta.c ^ meta.inner.nested;
            hdr.probe.instance = (bit<8>)sm.instance_type;
            hdr.eth.src = meta.wide;
            hdr.probe.egresses = meta.inner.plain;
            sm.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.probe.egresses = hdr.probe.egresses + 1; }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.probe); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
