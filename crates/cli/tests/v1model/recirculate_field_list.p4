// v1model recirculation as BMv2's simple_switch does it: at the end of
// egress the packet the deparser wrote goes through ingress again, with
// instance_type 4 and every metadata field reset but those of the field
// list chosen, which keep their values from the end of egress. A packet
// egress drops does not recirculate; one that recirculates without end
// is dropped after a bound on passes.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header probe_t { bit<8> mark; bit<8> kept; bit<8> lost; bit<8> instance; bit<8> passes; }
// A field list's index may be a serializable enum's member or a constant.
enum bit<8> Lists { Counted = 3 }
const bit<8> KEEP = 3;
struct meta_t {
    @field_list(KEEP) bit<8> kept;
    bit<8> lost;
    @field_list(Lists.Counted) bit<8> passes;
}
struct headers_t { eth_t eth; probe_t probe; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.probe); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.passes = meta.passes + 1;
        if (sm.instance_type == 4) {
            hdr.probe.kept = meta.kept;
            hdr.probe.lost = meta.lost;
            hdr.probe.instance = (bit<8>)sm.instance_type;
            hdr.probe.passes = meta.passes;
            sm.egress_spec = 3;
        } else {
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.eth.type == 0x1236 || sm.instance_type == 0) {
            // The header change reaches the next pass: the deparser wrote it.
            hdr.probe.mark = hdr.probe.mark + 0x10;
            recirculate_preserving_field_list(3);
            // Values at the end of egress are the ones kept.
            meta.kept = 0x33;
            meta.lost = 0x44;
            if (hdr.eth.type == 0x1235) {
                mark_to_drop(sm);
            }
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.probe); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
