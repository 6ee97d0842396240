// Pops a frame's VLAN tag: parses Ethernet and the tag (18 bytes) and
// emits Ethernet alone, its EtherType the tag's. On a live port at TC
// the program first puts back the tag the kernel took out, which moves
// the skb's MAC header to 18 bytes: the 4 bytes removed must still be
// the tag's, not the first 4 after it.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header vlan_t { bit<16> tci; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; vlan_t vlan; }
struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x8100: parse_vlan;
            default: accept;
        }
    }
    state parse_vlan { pkt.extract(hdr.vlan); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Ig(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (hdr.vlan.isValid()) {
            hdr.ethernet.ether_type = hdr.vlan.ether_type;
            hdr.vlan.setInvalid();
        }
    }
}
control Eg(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) { apply { } }
control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.vlan); }
}

V1Switch(P(), NoCheck(), Ig(), Eg(), NoCompute(), D()) main;
