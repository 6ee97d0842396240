// PNA add-on-miss (P4TC flavour): a miss runs learn(), whose add_entry
// inserts the looked-up key with known(); the flow's next packets hit it.
#include <core.p4>
#include <tc/pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    action learn() {
        add_entry(action_name = "known", action_params = {hdr.ethernet.etherType + 1, istd.input_port},
                  expire_time_profile_id = (ExpireTimeProfileId_t)1);
        send_to_port((PortId_t)2);
    }
    action known(bit<16> tag, PortId_t port) { hdr.ethernet.etherType = tag; send_to_port(port); }
    table flows {
        key = { hdr.ethernet.src : exact; hdr.ethernet.dst : exact; }
        actions = { known; learn; }
        default_action = learn;
        add_on_miss = true;
    }
    apply { flows.apply(); }
}
control D(packet_out pkt, inout headers_t hdr, in meta_t m, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}
PNA_NIC(P(), C(), D()) main;
