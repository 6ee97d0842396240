// PNA's allocate_flow_id(): a flow's first packet misses, learn() takes a
// new flow id, writes it into the packet and adds the flow's entry with
// it; the flow's later packets hit the entry and carry the same id to the
// host (PNA_PORT_CPU).
#include <core.p4>
#include <pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header flow_t { bit<32> id; }
struct headers_t { ethernet_t ethernet; flow_t flow; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m,
         in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.flow);
        transition accept;
    }
}

control Pre(in headers_t hdr, inout meta_t m, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control C(inout headers_t hdr, inout meta_t m, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    action learn() {
        FlowId_t id = allocate_flow_id();
        hdr.flow.id = (bit<32>) id;
        add_entry(action_name = "known", action_params = {(bit<32>) id},
                  expire_time_profile_id = (ExpireTimeProfileId_t) 0);
        send_to_port((PortId_t) 2);
    }
    action known(bit<32> id) {
        hdr.flow.id = id;
        send_to_port((PortId_t) 0xfffffffd);
    }
    table flows {
        key = { hdr.ethernet.src : exact; }
        actions = { known; learn; }
        default_action = learn;
        add_on_miss = true;
    }
    apply { flows.apply(); }
}

control D(packet_out pkt, in headers_t hdr, in meta_t m,
          in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.flow);
    }
}

PNA_NIC(P(), Pre(), C(), D()) main;
