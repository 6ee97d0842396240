// PSA's psa_idle_timeout = NOTIFY_CONTROL on a table of each kind the
// control plane fills: lpm, ternary (with an exact field), range (with a
// direct counter, whose cell shares the rule's value with the timer) and
// optional. Each table's action writes its own output byte, so a packet
// shows which entry of each table it hit.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<32> addr;
    bit<16> a;
    bit<8>  b;
    bit<16> c;
    bit<8>  d;
    bit<8>  o1;
    bit<8>  o2;
    bit<8>  o3;
    bit<8>  o4;
    bit<16> pad;
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
    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) hits;
    action set1(bit<8> v) { hdr.h.o1 = v; }
    action set2(bit<8> v) { hdr.h.o2 = v; }
    action set3(bit<8> v) { hdr.h.o3 = v; hits.count(); }
    action set4(bit<8> v) { hdr.h.o4 = v; }
    action none3() { hits.count(); }
    table by_prefix {
        key = { hdr.h.addr: lpm; }
        actions = { set1; NoAction; }
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table by_mask {
        key = { hdr.h.a: ternary; hdr.h.b: exact; }
        actions = { set2; NoAction; }
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table by_range {
        key = { hdr.h.c: range; }
        actions = { set3; none3; }
        default_action = none3;
        psa_direct_counter = hits;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    table by_option {
        key = { hdr.h.d: optional; hdr.h.addr: optional; }
        actions = { set4; NoAction; }
        default_action = NoAction;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
    }
    apply {
        send_to_port(ostd, (PortId_t) 32w1);
        by_prefix.apply();
        by_mask.apply();
        by_range.apply();
        by_option.apply();
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
