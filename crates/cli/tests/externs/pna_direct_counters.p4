// PNA direct counters on an add-on-miss table: an entry the data plane
// adds starts at zero and counts the hits of `known`, which calls
// `count()`; the miss that adds it counts nothing.
#include <core.p4>
#include <tc/pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}
struct headers_t { ethernet_t ethernet; }
struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t m,
         in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    DirectCounter<bit<64>>(PNA_CounterType_t.PACKETS_AND_BYTES) flow_bytes;
    action learn() {
        add_entry(action_name = "known", action_params = {istd.input_port},
                  expire_time_profile_id = (ExpireTimeProfileId_t)1);
        send_to_port((PortId_t)2);
    }
    action known(PortId_t port) {
        flow_bytes.count();
        send_to_port(port);
    }
    table flows {
        key = { hdr.ethernet.src : exact; }
        actions = { known; learn; }
        default_action = learn;
        add_on_miss = true;
        pna_direct_counter = flow_bytes;
    }
    apply { flows.apply(); }
}
control D(packet_out pkt, inout headers_t hdr, in meta_t m,
          in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}
PNA_NIC(P(), C(), D()) main;
