// Tables in the shapes PSA programs write them: const entries with range
// and optional keys (the first listed wins where they overlap), a
// default action with arguments, ternary entries with priorities from the
// control plane, `switch (t.apply().action_run)`, `hit` and `miss`, exit
// in an action, return in a control, nested if and switch.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// a, b, c: the keys; r1..r4: what the tables did.
header data_t {
    bit<8> a;
    bit<16> b;
    bit<32> c;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
    bit<8> r4;
}

struct headers_t {
    ethernet_t ethernet;
    data_t data;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x88b5: parse_data;
            default: accept;
        }
    }
    state parse_data {
        pkt.extract(hdr.data);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action set_r1(bit<8> v) { hdr.data.r1 = v; }
    action set_r2(bit<8> v) { hdr.data.r2 = v; }
    action set_r3(bit<8> v) { hdr.data.r3 = v; }
    action to_port(PortId_t port) { send_to_port(ostd, port); }
    action stop(bit<8> v) {
        hdr.data.r4 = v;
        exit;
        hdr.data.r4 = 0xbb;
    }

    table by_range {
        key = {
            hdr.data.b : range;
            hdr.data.a : optional;
        }
        actions = { set_r1; NoAction; }
        const entries = {
            (0 .. 100, 5) : set_r1(1);
            (50 .. 200, _) : set_r1(2);
            (1000 .. 1000, _) : set_r1(3);
        }
        default_action = set_r1(0xee);
    }

    table by_c {
        key = { hdr.data.c : exact; }
        actions = { to_port; stop; set_r2; }
        default_action = set_r2(0xdd);
    }

    table by_mask {
        key = { hdr.data.c : ternary; }
        actions = { set_r3; }
        default_action = set_r3(0);
    }

    apply {
        send_to_port(ostd, (PortId_t) 1);
        if (!hdr.data.isValid()) {
            return;
        }
        by_range.apply();
        switch (by_c.apply().action_run) {
            to_port: {
                if (by_mask.apply().hit) {
                    hdr.data.r2 = 0x11;
                } else {
                    switch (hdr.data.a) {
                        1: { hdr.data.r2 = 0x21; }
                        2:
                        3: { hdr.data.r2 = 0x23; }
                        default: { hdr.data.r2 = 0x2f; }
                    }
                }
            }
            set_r2: {
                if (by_mask.apply().miss) {
                    hdr.data.r3 = 0x99;
                    return;
                }
            }
        }
        hdr.data.r4 = hdr.data.r4 + 1;
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.data);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
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
    apply { }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
