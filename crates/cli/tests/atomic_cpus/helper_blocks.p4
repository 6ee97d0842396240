// `@atomic` blocks that a bpf_spin_lock cannot hold (each for another
// reason: a helper call, or a cell it cannot look up before the lock),
// and one that it could. All use register `cells`, so all take one lock
// word. The test finds each reason by its `// helpers:` mark.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8>  slot;
    bit<8>  other;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {
    bit<8> index;
}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Register<bit<32>, bit<8>>(4) cells;
    Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS) seen;
    Random<bit<8>>(0, 3) dice;

    action bump() {
        cells.write(3, 1);
    }
    action pick(bit<8> slot) {
        meta.index = slot;
    }
    table choose {
        key = { hdr.probe.other : exact; }
        actions = { pick; NoAction; }
        default_action = NoAction();
    }

    apply {
        send_to_port(ostd, (PortId_t) 2);
        @atomic {
            meta.index = hdr.probe.slot;
            bit<32> n = cells.read(meta.index);
            meta.index = (bit<8>) n;
            cells.write(meta.index, 1); // helpers: depends on something the block assigns
        }
        @atomic {
            choose.apply(); // helpers: applies table `In.choose`
            cells.write(meta.index, 2);
        }
        @atomic {
            seen.count(hdr.probe.slot); // helpers: calls `In.seen`
            cells.write(hdr.probe.slot, 3);
        }
        @atomic {
            bit<32> n = cells.read(0);
            cells.write((bit<8>) dice.read(), n); // helpers: draws a random number
        }
        @atomic {
            bump(); // helpers: action `In.bump` uses register `In.cells`
        }
        @atomic {
            cells.write((bit<8>) cells.read(0), 4); // helpers: the index of `In.cells` reads a register
        }
        @atomic {
            for (bit<8> i = 0; i < hdr.probe.slot; i = i + 1) { // helpers: loops
                cells.write(i, 5);
            }
        }
        @atomic {
            bit<32> was = cells.read(hdr.probe.slot);
            cells.write(hdr.probe.slot, was + 1);
            hdr.probe.other = (bit<8>) was;
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
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
