// One control type applied twice (two instances, constructor arguments
// 0x10 and 0x20) with its headers and a header stack as inout
// arguments: a switch on a bit field whose case returns (ending only that
// instance), pops the stack, or calls an action with an inout argument
// directly, the action exiting after it wrote it (P4_16 12.5: the
// argument is copied back, then every control ends), or loops, the
// second instance exiting from inside the loop.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header data_t {
    bit<8> op;
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

header label_t {
    bit<8> v;
}

struct headers_t {
    ethernet_t ethernet;
    data_t data;
    label_t[3] stack;
}

struct meta_t {}
struct empty_t {}

control Step(inout data_t d, inout label_t[3] s)(bit<8> tag) {
    action put(inout bit<8> x, bit<8> v) {
        x = v;
        if (v == 0xee) {
            exit;
        }
        x = v + 1;
    }
    apply {
        switch (d.op) {
            1: {
                d.a = tag;
                return;
            }
            2: {
                s.pop_front(1);
                d.b = s[0].v;
            }
            3: {
                put(d.c, 0xee);
                d.a = 0x99;
            }
            4: {
                for (bit<8> i = 0; i < 4; i = i + 1) {
                    d.c = d.c + 1;
                    if (i == 2 && tag == 0x20) {
                        exit;
                    }
                }
            }
            default: { put(d.c, tag); }
        }
        d.b = d.b | tag;
    }
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.data);
        pkt.extract(hdr.stack.next);
        pkt.extract(hdr.stack.next);
        pkt.extract(hdr.stack.next);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Step(0x10) first;
    Step(0x20) second;
    apply {
        send_to_port(ostd, (PortId_t) 2);
        first.apply(hdr.data, hdr.stack);
        second.apply(hdr.data, hdr.stack);
        hdr.data.a = hdr.data.a | 0x80;
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.data);
        pkt.emit(hdr.stack);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
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
    apply { }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
