// A parser cycle through a stack's `next` with several ways around it
// (options of 1, 2 and 4 bytes into a stack of unions, chosen by
// lookahead): the paths differ at every turn, so the cycle runs as a
// parser loop function rather than inline. Ingress counts the options
// of each kind; a ninth option overflows the stack (StackOutOfBounds).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header count_t { bit<8> options; bit<8> ones; bit<8> twos; bit<8> fours; bit<8> error_seen; }
header one_t { bit<8> kind; }
header two_t { bit<8> kind; bit<8> value; }
header four_t { bit<8> kind; bit<8> length; bit<16> value; }
header_union option_t { one_t one; two_t two; four_t four; }
struct headers_t { eth_t eth; count_t count; option_t[8] options; one_t end; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.count);
        transition next_option;
    }
    state next_option {
        transition select(pkt.lookahead<bit<8>>()) {
            0: end;
            1: one;
            2: two;
            4: four;
        }
    }
    state one { pkt.extract(hdr.options.next.one); transition next_option; }
    state two { pkt.extract(hdr.options.next.two); transition next_option; }
    state four { pkt.extract(hdr.options.next.four); transition next_option; }
    state end { pkt.extract(hdr.end); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) { hdr.count.error_seen = 1; }
        for (option_t o in hdr.options) {
            if (o.one.isValid()) { hdr.count.ones = hdr.count.ones + 1; }
            if (o.two.isValid()) { hdr.count.twos = hdr.count.twos + 1; }
            if (o.four.isValid()) { hdr.count.fours = hdr.count.fours + 1; }
        }
        hdr.count.options = hdr.count.ones + hdr.count.twos + hdr.count.fours;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.count); pkt.emit(hdr.options); pkt.emit(hdr.end); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
