// PSA E2E clones of a packet that recirculates. The `ctl` header says how
// many times the packet recirculates (`passes`), which clone session each
// egress pass asks for (`session`; with bit 7 set, session[6:0] plus the
// pass number, so each pass has its own session) and whether the last
// pass drops the packet (`drop`: 1 in ingress, 2 in egress), sends it
// to the host (3: `PSA_PORT_CPU`) or to multicast group 8 (4). Each egress
// pass counts itself in `pass`, carries its number to its clones in
// clone_e2e_meta, and adds a 2-byte tag on odd passes only, so the frames
// of two passes differ in length. A clone's egress writes into the frame
// its path, port and instance and the number it was carried, so a clone
// shows the frame and the state of the pass that made it.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ctl_t {
    bit<8> passes;
    bit<8> session;
    bit<8> drop;
    bit<8> pass;
    bit<8> path;
    bit<8> port;
    bit<16> instance;
    bit<8> carried;
    bit<8> has_tag;
}

header tag_t {
    bit<16> value;
}

struct headers_t {
    ethernet_t ethernet;
    ctl_t ctl;
    tag_t tag;
}

struct e2e_meta_t {
    bit<8> carried;
}

struct meta_t {
    bit<8> carried;
}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        transition select(hdr.ctl.has_tag) {
            1: tagged;
            default: accept;
        }
    }
    state tagged {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (hdr.ctl.pass < hdr.ctl.passes) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else if (hdr.ctl.drop == 3) {
            send_to_port(ostd, PSA_PORT_CPU);
        } else if (hdr.ctl.drop == 4) {
            multicast(ostd, (MulticastGroup_t) 8);
        } else if (hdr.ctl.drop == 1) {
            ingress_drop(ostd);
        } else {
            send_to_port(ostd, (PortId_t) 2);
        }
    }
}

control CommonDeparser(packet_out pkt, inout headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.tag);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    CommonDeparser() common;
    apply {
        common.apply(pkt, hdr);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in e2e_meta_t clone_e2e_meta) {
    state start {
        meta.carried = 0;
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        transition select(hdr.ctl.has_tag) {
            1: tagged;
            default: path;
        }
    }
    state tagged {
        pkt.extract(hdr.tag);
        transition path;
    }
    state path {
        transition select(istd.packet_path) {
            PSA_PacketPath_t.CLONE_E2E: cloned;
            default: accept;
        }
    }
    state cloned {
        meta.carried = clone_e2e_meta.carried;
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.packet_path == PSA_PacketPath_t.CLONE_E2E) {
            hdr.ctl.path = 4;
            hdr.ctl.port = (bit<8>) (bit<32>) istd.egress_port;
            hdr.ctl.instance = (bit<16>) (EgressInstanceUint_t) istd.instance;
            hdr.ctl.carried = meta.carried;
        } else {
            hdr.ctl.pass = hdr.ctl.pass + 1;
            meta.carried = hdr.ctl.pass;
            if (hdr.ctl.pass[0:0] == 1) {
                hdr.tag.setValid();
                hdr.tag.value = 0xabcd;
                hdr.ctl.has_tag = 1;
            } else {
                hdr.tag.setInvalid();
                hdr.ctl.has_tag = 0;
            }
            bit<8> session = hdr.ctl.session;
            if (session[7:7] == 1) {
                session = (session & 0x7f) + hdr.ctl.pass;
            }
            if (session != 0) {
                ostd.clone = true;
                ostd.clone_session_id = (CloneSessionId_t) (bit<16>) session;
            }
            if (hdr.ctl.drop == 2 && istd.egress_port != PSA_PORT_RECIRCULATE) {
                egress_drop(ostd);
            }
        }
    }
}

control EgDeparser(packet_out pkt, out e2e_meta_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    CommonDeparser() common;
    apply {
        if (psa_clone_e2e(istd)) {
            clone_e2e_meta.carried = meta.carried;
        }
        common.apply(pkt, hdr);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
