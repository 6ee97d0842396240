// PNA's mirror_packet: after the main deparser, each mirror slot called
// sends a copy of the packet as the deparser wrote it to its session's
// ports; the last call per slot wins, and the packet itself goes where
// the forwarding calls sent it, or is dropped.
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
    action mirror_to(MirrorSlotId_t slot, MirrorSessionId_t session) {
        mirror_packet(slot, session);
    }

    // The control plane picks the slot and the session.
    table mirrors {
        key = { hdr.ethernet.etherType : exact; }
        actions = { mirror_to; NoAction; }
        default_action = NoAction();
    }

    apply {
        bit<8> op = hdr.ethernet.dst[7:0];
        // Copies carry what the main control changed.
        hdr.ethernet.src[7:0] = 0xaa;
        send_to_port((PortId_t)2);
        if (op == 1) {
            mirror_packet((MirrorSlotId_t)0, (MirrorSessionId_t)5);
        } else if (op == 2) {
            mirror_packet((MirrorSlotId_t)0, (MirrorSessionId_t)5);
            drop_packet();
        } else if (op == 3) {
            mirror_packet((MirrorSlotId_t)0, (MirrorSessionId_t)5);
            mirror_packet((MirrorSlotId_t)3, (MirrorSessionId_t)6);
        } else if (op == 4) {
            mirror_packet((MirrorSlotId_t)1, (MirrorSessionId_t)5);
            mirror_packet((MirrorSlotId_t)1, (MirrorSessionId_t)6);
        } else if (op == 5) {
            mirror_packet((MirrorSlotId_t)2, (MirrorSessionId_t)7);
        } else if (op == 6) {
            mirror_packet((MirrorSlotId_t)(MirrorSlotIdUint_t)hdr.ethernet.dst[15:8],
                          (MirrorSessionId_t)6);
        } else if (op == 7) {
            drop_packet();
            mirrors.apply();
        } else if (op == 8) {
            mirror_packet((MirrorSlotId_t)0, (MirrorSessionId_t)5);
            send_to_port((PortId_t)(InterfaceIdUint_t)PNA_PORT_CPU);
        } else if (op == 9) {
            // Each pass has its own slots.
            hdr.ethernet.src[15:8] = (bit<8>)(PassNumberUint_t)istd.pass;
            if (istd.pass == (PassNumber_t)0) {
                mirror_packet((MirrorSlotId_t)0, (MirrorSessionId_t)5);
                recirculate();
            } else {
                mirror_packet((MirrorSlotId_t)1, (MirrorSessionId_t)6);
            }
        }
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
