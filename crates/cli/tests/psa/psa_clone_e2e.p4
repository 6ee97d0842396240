// PSA clone E2E: egress clones the packet it wrote to the session the
// packet's `session` byte names, whether egress then sends it, drops it
// (session byte with bit 7 set) or not. Each clone runs egress again,
// which writes into the packet the path, port and instance it saw and
// the byte egress carried over in clone_e2e_meta; the original leaves
// with its marker set by the first egress.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header clone_t {
    bit<8> session;
    bit<8> marker;
    bit<8> path;
    bit<8> port;
    bit<16> instance;
    bit<8> carried;
}

struct headers_t {
    ethernet_t ethernet;
    clone_t info;
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
        pkt.extract(hdr.info);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.info);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in e2e_meta_t clone_e2e_meta) {
    state start {
        meta.carried = 0;
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.info);
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
            hdr.info.path = 4;
            hdr.info.port = (bit<8>) (bit<32>) istd.egress_port;
            hdr.info.instance = (bit<16>) (EgressInstanceUint_t) istd.instance;
            hdr.info.carried = meta.carried;
        } else {
            hdr.info.marker = 0xaa;
            meta.carried = 0x5c;
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) (bit<16>) hdr.info.session[6:0];
            if (hdr.info.session[7:7] == 1) {
                egress_drop(ostd);
            }
        }
    }
}

control EgDeparser(packet_out pkt, out e2e_meta_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_clone_e2e(istd)) {
            clone_e2e_meta.carried = meta.carried;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.info);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
