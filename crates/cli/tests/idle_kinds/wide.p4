// Idle timers on wide keys: a 128-bit ternary key beside an 8-bit exact
// one, and a 128-bit lpm key (byte arrays in network order), each
// writing its own output byte.
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
    table by_mask {
        key = { hdr.h.addr: ternary; hdr.h.kind: exact; }
        actions = { set1; NoAction; }
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table by_prefix {
        key = { hdr.h.addr: lpm; }
        actions = { set2; NoAction; }
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    apply {
        send_to_port(ostd, (PortId_t) 32w1);
        by_mask.apply();
        by_prefix.apply();
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
