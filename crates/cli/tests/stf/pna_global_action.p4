// `.name` in a table's `actions` list is the top-level action, even where
// the control declares an action of the same name: `tagged` binds the
// top-level mark's inout parameter, `local` uses the control's mark.
#include <core.p4>
#include <tc/pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
action mark(inout bit<16> field, bit<16> value, PortId_t port) { field = value; send_to_port(port); }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    action mark(bit<16> value) { hdr.ethernet.etherType = value + 1; send_to_port((PortId_t)5); }
    action drop() { drop_packet(); }
    table tagged {
        key = { hdr.ethernet.src : exact; }
        actions = { .mark(hdr.ethernet.etherType); drop; }
        const default_action = drop;
    }
    table local {
        key = { hdr.ethernet.src : exact; }
        actions = { mark; drop; }
        const default_action = drop;
    }
    apply {
        if (hdr.ethernet.dst == 1) { tagged.apply(); } else { local.apply(); }
    }
}
control D(packet_out pkt, inout headers_t hdr, in meta_t m, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}
PNA_NIC(P(), C(), D()) main;
