// `@atomic` blocks under both kinds of lock. The first block counts the
// packet and applies a table whose action adds to `total`: helper calls,
// which a bpf_spin_lock forbids, so `total`, `seen` and the table share
// lock word 0, taken by compare-and-swap before the block and given back
// on every way out (`exit` in the action, `return` in the block). The
// plain block on `total` takes the same word (one lock per domain); the
// block on `other` alone keeps its bpf_spin_lock, cells looked up first.
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
    Register<bit<32>, bit<8>>(4) total;
    Register<bit<16>, bit<8>>(1) other;
    Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS) seen;

    action add(bit<32> amount) {
        total.write(hdr.probe.slot, total.read(hdr.probe.slot) + amount);
        if (hdr.probe.op == 1) {
            exit;
        }
    }
    table by_slot {
        key = { hdr.probe.slot : exact; }
        actions = { add; NoAction; }
        default_action = NoAction();
    }

    apply {
        send_to_port(ostd, (PortId_t) 2);
        @atomic {
            seen.count(hdr.probe.slot);
            by_slot.apply();
            if (hdr.probe.op == 2) {
                return;
            }
        }
        @atomic {
            total.write(0, total.read(0) + 1);
        }
        @atomic {
            other.write(0, other.read(0) + 1);
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
