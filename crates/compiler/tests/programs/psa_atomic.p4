// `@atomic` blocks under locks: the first two blocks share register `b`,
// so `a`, `b` and `c` share one lock; `d`, used only in an action's
// block, has its own. Each block's cells are looked up before its lock;
// `exit` (in the apply block) and `return` (in the action) unlock first;
// a nested `@atomic` is inside its outer block's lock. `b` starts at 7
// (cells hold value ^ 7) and `c` holds signed values. The first block
// computes its index first, before the lock (one lookup for the read and
// the write); a hash, plain C, also runs under the lock.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8>  slot;
    bit<8>  op;
    bit<16> seen;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}
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
    Register<bit<32>, bit<8>>(4) a;
    Register<bit<64>, bit<8>>(4, 64w7) b;
    Register<int<8>, bit<8>>(2) c;
    Register<bit<16>, bit<8>>(1) d;
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) spreader;

    action tally() {
        @atomic {
            bit<16> n = d.read(0);
            d.write(0, n + 1);
            if (n == 0) {
                return;
            }
            hdr.probe.seen = n;
        }
    }
    table by_slot {
        key = { hdr.probe.slot : exact; }
        actions = { tally; NoAction; }
        default_action = NoAction();
    }

    apply {
        send_to_port(ostd, (PortId_t) 2);
        @atomic {
            bit<8> spread = (bit<8>) spreader.get_hash(hdr.probe.op);
            a.write(spread, a.read(spread) + (bit<32>) spreader.get_hash(hdr.probe.slot));
            @atomic {
                b.write(hdr.probe.slot, b.read(hdr.probe.slot) + 2);
            }
        }
        @atomic {
            b.write(0, b.read(0) ^ 1);
            c.write(1, c.read(1) - 1);
            if (hdr.probe.op == 1) {
                exit;
            }
        }
        by_slot.apply();
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
