// What add_entry returns (P4TC's flavour): ADD_ENTRY_SUCCESS (0) when the
// entry went in, ADD_ENTRY_NOT_DONE (1) when it did not: `flows` holds
// two entries, so a third flow is refused; `watched`'s @tc_acl lets the
// data plane create nothing, so every call there is refused; `gated`
// adds with add_entry_if, only for sources whose low byte is even. The
// result leaves in the EtherType's low byte.
#include <core.p4>
#include <tc/pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    action known(bit<8> tag) {
        hdr.ethernet.etherType = 0x8800 | (bit<16>)tag;
        send_to_port((PortId_t)1);
    }
    action learn() {
        AddEntryErrorStatus_t status = add_entry(action_name = "known",
            action_params = {hdr.ethernet.src[7:0]},
            expire_time_profile_id = (ExpireTimeProfileId_t)0);
        hdr.ethernet.etherType = 0x8900 | (bit<16>)status;
        send_to_port((PortId_t)2);
    }
    action watch() {
        if (add_entry(action_name = "known", action_params = {8w0xee},
                      expire_time_profile_id = (ExpireTimeProfileId_t)0) == ADD_ENTRY_SUCCESS) {
            hdr.ethernet.etherType = 0x8a00;
        } else {
            hdr.ethernet.etherType = 0x8a01;
        }
        send_to_port((PortId_t)3);
    }
    action gate() {
        AddEntryErrorStatus_t status = add_entry_if(hdr.ethernet.src[0:0] == 0, "known",
            {hdr.ethernet.src[7:0]}, (ExpireTimeProfileId_t)0);
        hdr.ethernet.etherType = 0x8b00 | (bit<16>)status;
        send_to_port((PortId_t)4);
    }
    table gated {
        key = { hdr.ethernet.src : exact; }
        actions = { known; gate; }
        default_action = gate;
        add_on_miss = true;
    }
    table flows {
        key = { hdr.ethernet.src : exact; }
        actions = { known; learn; }
        default_action = learn;
        add_on_miss = true;
        size = 2;
    }
    @tc_acl("CRUDPS:RX") table watched {
        key = { hdr.ethernet.src : exact; }
        actions = { known; watch; }
        default_action = watch;
        add_on_miss = true;
    }
    apply {
        if (hdr.ethernet.dst == 0xffffffffffff) {
            watched.apply();
        } else if (hdr.ethernet.dst == 0x000000000002) {
            gated.apply();
        } else {
            flows.apply();
        }
    }
}
control D(packet_out pkt, inout headers_t hdr, in meta_t m, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}
PNA_NIC(P(), C(), D()) main;
