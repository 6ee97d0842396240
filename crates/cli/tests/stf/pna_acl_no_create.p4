// P4TC's @tc_acl on add-on-miss tables: `watched` does not let the data
// plane create entries (no `C` after the colon), so its add_entry never
// inserts and each packet of a flow misses; `learned` lets it, so a flow's
// second packet hits. The compiler warns about `watched`'s add_entry.
#include <core.p4>
#include <tc/pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    action known(bit<16> tag, PortId_t port) { hdr.ethernet.etherType = tag; send_to_port(port); }
    action watch() {
        add_entry(action_name = "known", action_params = {hdr.ethernet.etherType + 1, istd.input_port},
                  expire_time_profile_id = (ExpireTimeProfileId_t)0);
        send_to_port((PortId_t)2);
    }
    action learn() {
        add_entry(action_name = "known", action_params = {hdr.ethernet.etherType + 2, istd.input_port},
                  expire_time_profile_id = (ExpireTimeProfileId_t)0);
        send_to_port((PortId_t)3);
    }
    @tc_acl("CRUDPS:RX") table watched {
        key = { hdr.ethernet.src : exact; }
        actions = { known; watch; }
        default_action = watch;
        add_on_miss = true;
    }
    @tc_acl("CRUDPS:RXC") table learned {
        key = { hdr.ethernet.src : exact; }
        actions = { known; learn; }
        default_action = learn;
        add_on_miss = true;
    }
    apply {
        if (hdr.ethernet.etherType == 0x88b5) { watched.apply(); } else { learned.apply(); }
    }
}
control D(packet_out pkt, inout headers_t hdr, in meta_t m, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}
PNA_NIC(P(), C(), D()) main;
