// PSA's psa_idle_timeout: `flows` is NOTIFY_CONTROL, so its entries
// have timers that every hit restarts, and the control plane's sweep
// reports (and keeps) those idle for longer than their timeout; `marks`
// is NO_TIMEOUT, so its entries have none. A control-plane entry's timer
// starts at its first hit.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<8> kind;
    bit<8> seen;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x1234: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action forward(PortId_t port) { send_to_port(ostd, port); }
    action mark(bit<8> kind) { hdr.tag.kind = kind; }
    table flows {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; NoAction; }
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table marks {
        key = { hdr.ethernet.src: exact; }
        actions = { mark; NoAction; }
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NO_TIMEOUT;
    }
    apply {
        flows.apply();
        marks.apply();
    }
}

control Emit(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    Emit() e;
    apply {
        e.apply(pkt, hdr);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x1234: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    Emit() e;
    apply {
        e.apply(pkt, hdr);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
