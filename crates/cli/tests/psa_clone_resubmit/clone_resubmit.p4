// PSA clone I2E in a program that resubmits. The first pass (path
// NORMAL) clones to session `op.clone1` when not 0 and resubmits when
// `op.resubmit` is not 0, else sends to `op.port`; the resubmitted pass
// notes the kept resubmit metadata in `op.pass`, clones to session
// `op.clone2` when not 0, drops when `op.drop` is not 0, else adds a
// `tag` header (the frame grows) and sends to `op.port`. A clone is of
// the packet as received; its egress sees the clone metadata its pass's
// deparser wrote (`from_pass`: 1 or 2). Every egress writes its path (1
// unicast, 3 I2E clone), instance and class of service.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header op_t {
    bit<8> port;
    bit<8> clone1;
    bit<8> resubmit;
    bit<8> clone2;
    bit<8> drop;
    bit<8> pass;
    bit<8> path;
    bit<8> instance;
    bit<8> cos;
    bit<8> from_pass;
}

header tag_t {
    bit<16> value;
}

struct headers_t {
    ethernet_t ethernet;
    op_t op;
    tag_t tag;
}

struct meta_t {
    bit<8> mark;
    bit<8> from_pass;
}

struct resubmit_meta_t {
    bit<8> mark;
}

struct clone_meta_t {
    bit<8> from_pass;
}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in resubmit_meta_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.op);
        meta.mark = resubmit_meta.mark;
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        PortId_t port = (PortId_t) (bit<32>) hdr.op.port;
        if (istd.packet_path == PSA_PacketPath_t.RESUBMIT) {
            hdr.op.pass = meta.mark;
            if (hdr.op.clone2 != 0) {
                ostd.clone = true;
                ostd.clone_session_id = (CloneSessionId_t) (bit<16>) hdr.op.clone2;
            }
            if (hdr.op.drop != 0) {
                ingress_drop(ostd);
            } else {
                hdr.tag.setValid();
                hdr.tag.value = 0xabcd;
                send_to_port(ostd, port);
            }
        } else {
            hdr.op.pass = 1;
            if (hdr.op.clone1 != 0) {
                ostd.clone = true;
                ostd.clone_session_id = (CloneSessionId_t) (bit<16>) hdr.op.clone1;
            }
            if (hdr.op.resubmit != 0) {
                // PSA drops before it resubmits: a packet to resubmit is
                // not dropped.
                ostd.drop = false;
                ostd.resubmit = true;
            } else {
                send_to_port(ostd, port);
            }
        }
    }
}

control InDeparser(packet_out pkt, out clone_meta_t clone_i2e_meta,
                   out resubmit_meta_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        clone_i2e_meta.from_pass = hdr.op.pass;
        resubmit_meta.mark = 2;
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.op);
        pkt.emit(hdr.tag);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in clone_meta_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.op);
        meta.from_pass = clone_i2e_meta.from_pass;
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (!hdr.op.isValid()) {
            return;
        }
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            hdr.op.path = 1;
        } else if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) {
            hdr.op.path = 3;
            hdr.op.from_pass = meta.from_pass;
        }
        hdr.op.instance = (bit<8>) (EgressInstanceUint_t) istd.instance;
        hdr.op.cos = (ClassOfServiceUint_t) istd.class_of_service;
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.op);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
