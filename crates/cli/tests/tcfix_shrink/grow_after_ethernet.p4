// Parses Ethernet alone and emits an 8-byte header after it. On a live
// port at TC a tagged frame's VLAN tag is put back first, which moves the
// skb's MAC header to 18 bytes: the room must open right after the 14
// bytes parsed, so the tag follows the new header.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header shim_t { bit<16> ether_type; bit<48> mark; }
struct headers_t { ethernet_t ethernet; shim_t shim; }
struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Ig(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        hdr.shim.setValid();
        hdr.shim.ether_type = hdr.ethernet.ether_type;
        hdr.shim.mark = 0xa1a2a3a4a5a6;
        hdr.ethernet.ether_type = 0x88b5;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) { apply { } }
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.shim); }
}

V1Switch(P(), NoCheck(), Ig(), Eg(), NoCompute(), D()) main;
