// PNA's entry timers on an add-on-miss table with
// idle_timeout_with_auto_delete: an entry idle for longer than its
// expire-time profile's timeout is deleted at its next lookup, which
// misses (and here adds it again). `add_entry` gives a new entry its
// profile, `set_entry_expire_time` gives a matched entry another.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t {
}

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control PreControl(in headers_t hdr, inout meta_t meta,
                   in pna_pre_input_metadata_t istd,
                   inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControl(inout headers_t hdr, inout meta_t meta,
                    in pna_main_input_metadata_t istd,
                    inout pna_main_output_metadata_t ostd) {
    // dst[7:0]: the profile a new entry gets; dst[15:8]: what a hit does
    // with its timer (1: a new profile, dst[23:16]; 2: restart it).
    action known(PortId_t port) {
        bit<8> op = hdr.ethernet.dst[15:8];
        set_entry_expire_time_if(op == 1, (ExpireTimeProfileId_t)hdr.ethernet.dst[23:16]);
        if (op == 2) {
            restart_expire_timer();
        }
        send_to_port(port);
    }
    action learn() {
        add_entry(action_name = "known", action_params = {(PortId_t)1},
                  expire_time_profile_id = (ExpireTimeProfileId_t)hdr.ethernet.dst[7:0]);
        send_to_port((PortId_t)2);
    }
    table flows {
        key = { hdr.ethernet.src : exact; }
        actions = { known; learn; }
        default_action = learn;
        add_on_miss = true;
        idle_timeout_with_auto_delete = true;
    }
    apply {
        flows.apply();
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
