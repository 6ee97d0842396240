// Idle timers on a table with an action profile: the timer stays with
// the table's entry (its value names a member), not with the member.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<128> addr;
    bit<8>   kind;
    bit<8>   o1;
    bit<8>   o2;
    bit<8>   pad;
}

struct headers_t { h_t h; }
struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action set1(bit<8> v) { hdr.h.o1 = v; }
    action set2(bit<8> v) { hdr.h.o2 = v; }
    ActionProfile(64) ap;
    ActionProfile(64) ap2;
    table by_mask {
        key = { hdr.h.addr: ternary; hdr.h.kind: exact; }
        actions = { set1; NoAction; }
        psa_implementation = ap;
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table by_kind {
        key = { hdr.h.kind: exact; }
        actions = { set2; NoAction; }
        default_action = NoAction;
        psa_implementation = ap2;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    apply {
        send_to_port(ostd, (PortId_t) 32w1);
        by_mask.apply();
        by_kind.apply();
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.h); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.h);
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
    apply { pkt.emit(hdr.h); }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
