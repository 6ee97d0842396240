// PNA: every packet gets a 20-byte tunnel header after Ethernet, leaves
// by port 2 and is mirrored to session 5 (`tests/mtu_drop.rs`).
#include <core.p4>
#include <pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tunnel_t { bit<32> id; bit<32> seq; bit<64> stamp; bit<16> inner_type; bit<16> len; }
struct headers_t { ethernet_t ethernet; tunnel_t tunnel; }
struct meta_t {}

parser MainParser(packet_in p, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start { p.extract(hdr.ethernet); transition accept; }
}
control PreControl(in headers_t hdr, inout meta_t meta, in pna_pre_input_metadata_t istd,
                   inout pna_pre_output_metadata_t ostd) {
    apply { }
}
control MainControl(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
                    inout pna_main_output_metadata_t ostd) {
    apply {
        hdr.tunnel.setValid();
        hdr.tunnel.id = 0x7e57;
        hdr.tunnel.seq = 1;
        hdr.tunnel.stamp = 0;
        hdr.tunnel.inner_type = hdr.ethernet.ether_type;
        hdr.tunnel.len = 20;
        hdr.ethernet.ether_type = 0x88b5;
        send_to_port((PortId_t)2);
        mirror_packet((MirrorSlotId_t)0, (MirrorSessionId_t)5);
    }
}
control MainDeparser(packet_out p, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply { p.emit(hdr.ethernet); p.emit(hdr.tunnel); }
}
PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
