// An `@atomic` block that calls kernel helpers: it counts the packet in
// a PSA Counter, hashes its slot, applies a table whose action adds the
// packet's `amount` to `sum[slot]` (which starts at 5) and 1 to
// `count[slot]`, and bumps `twin` at an index it computes inside the
// block. None of it fits a bpf_spin_lock, so the block takes a lock word:
// sum == 5 + amount * count and twin == count hold after any number of
// packets from any CPUs, and count is exactly the number of packets. The
// probe carries out what the cells held before the packet and the hash.
// `op` 1 leaves the block by `exit` from the action (after its update),
// op 2 by `return` after choosing port 3; the others reach the end,
// which marks the probe with op 0xff.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8>  op;
    bit<8>  slot;
    bit<16> amount;
    bit<32> count;
    bit<64> sum;
    bit<16> hash;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {
    bit<8> twin_at;
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
    Register<bit<32>, bit<8>>(4) count;
    Register<bit<64>, bit<8>>(4, 64w5) sum;
    Register<bit<32>, bit<8>>(4) twin;
    Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS) seen;
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) slot_hash;

    action add() {
        bit<32> n = count.read(hdr.probe.slot);
        bit<64> s = sum.read(hdr.probe.slot);
        hdr.probe.count = n;
        hdr.probe.sum = s;
        count.write(hdr.probe.slot, n + 1);
        sum.write(hdr.probe.slot, s + (bit<64>) hdr.probe.amount);
        if (hdr.probe.op == 1) {
            exit;
        }
    }
    table account {
        key = { hdr.ethernet.ether_type : exact; }
        actions = { add; NoAction; }
        default_action = add();
        size = 16;
    }

    apply {
        send_to_port(ostd, (PortId_t) 2);
        @atomic {
            seen.count(hdr.probe.slot);
            hdr.probe.hash = slot_hash.get_hash(hdr.probe.slot);
            account.apply();
            meta.twin_at = hdr.probe.slot;
            twin.write(meta.twin_at, twin.read(meta.twin_at) + 1);
            if (hdr.probe.op == 2) {
                send_to_port(ostd, (PortId_t) 3);
                return;
            }
        }
        hdr.probe.op = 0xff;
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
