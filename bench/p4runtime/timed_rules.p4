// Two ternary tables on the same key, one with PSA idle timeouts
// (NOTIFY_CONTROL: each rule's timer lives in its cells slot) and one
// without, so timed_inserts (crates/cli/examples) compares a timed insert
// with a plain one on tables of the same shape.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<16> a;
    bit<8>  b;
    bit<8>  o1;
    bit<8>  o2;
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
    table timed {
        key = { hdr.h.a: ternary; hdr.h.b: exact; }
        actions = { set1; NoAction; }
        default_action = NoAction;
        size = 4096;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table plain {
        key = { hdr.h.a: ternary; hdr.h.b: exact; }
        actions = { set2; NoAction; }
        default_action = NoAction;
        size = 4096;
    }
    apply {
        send_to_port(ostd, (PortId_t) 32w1);
        timed.apply();
        plain.apply();
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
