// v1model: every packet is multicast to group 1; egress pushes a 20-byte
// tunnel header on the copy of replica id 7 only (`tests/mtu_drop.rs`).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tunnel_t { bit<32> id; bit<32> seq; bit<64> stamp; bit<16> inner_type; bit<16> len; }
struct headers_t { ethernet_t ethernet; tunnel_t tunnel; }
struct meta_t {}

parser Prs(packet_in p, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { p.extract(hdr.ethernet); transition accept; }
}
control Verify(inout headers_t hdr, inout meta_t meta) { apply {} }
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.mcast_grp = 1; }
}
control Egr(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_rid == 7) {
            hdr.tunnel.setValid();
            hdr.tunnel.id = 0x7e57;
            hdr.tunnel.seq = 1;
            hdr.tunnel.stamp = 0;
            hdr.tunnel.inner_type = hdr.ethernet.ether_type;
            hdr.tunnel.len = 20;
            hdr.ethernet.ether_type = 0x88b5;
        }
    }
}
control Compute(inout headers_t hdr, inout meta_t meta) { apply {} }
control Dprs(packet_out p, in headers_t hdr) {
    apply { p.emit(hdr.ethernet); p.emit(hdr.tunnel); }
}
V1Switch(Prs(), Verify(), Ing(), Egr(), Compute(), Dprs()) main;
