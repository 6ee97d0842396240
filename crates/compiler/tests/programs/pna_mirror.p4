// PNA's mirror_packet: two slots, a session from a table entry, and the
// packet itself sent on; copies of the packet the deparser wrote.
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
    action forward(PortId_t port, MirrorSessionId_t session) {
        send_to_port(port);
        mirror_packet((MirrorSlotId_t)1, session);
    }

    action drop() {
        drop_packet();
    }

    table flows {
        key = { hdr.ethernet.dst : exact; }
        actions = { forward; drop; }
        default_action = drop();
    }

    apply {
        hdr.ethernet.src = 0x0a0b0c0d0e0f;
        mirror_packet((MirrorSlotId_t)0, (MirrorSessionId_t)7);
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
