// PNA's ipsec_accelerator on a target without one: from_ipsec() is always
// false (the parser marks the frame with 0x01 when it is), and a frame
// still sent to the accelerator after the main control (enable() without
// a later disable()) is dropped rather than sent unencrypted.
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
    bool decrypted;
}

ipsec_accelerator() ipsec;

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        ipsec_status status;
        meta.decrypted = ipsec.from_ipsec(status);
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
    action encrypt(bit<32> sa) {
        ipsec.enable();
        ipsec.set_sa_index<bit<32>>(sa);
    }
    action clear() { ipsec.disable(); }
    table outbound {
        key = { hdr.ethernet.dst : exact; }
        actions = { encrypt; clear; }
        default_action = clear;
    }
    apply {
        if (meta.decrypted) {
            hdr.ethernet.etherType = 0x0001;
        }
        outbound.apply();
        if (hdr.ethernet.src == 1) {
            // Changed its mind: this one leaves in the clear.
            ipsec.disable();
        }
        send_to_port((PortId_t)2);
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
