// One lock domain, three ways in: `op` 0 runs a block that counts the
// packet and applies a table (kernel helpers: a lock word); `op` 1 a block
// of plain register reads and writes, which alone would take a
// bpf_spin_lock but shares `count` and `sum`, so it takes the same word;
// any other `op` applies the table outside any block, and the action's
// own `@atomic` block takes the word, which op 0's finds already held by
// its CPU. Each adds `amount` to `sum[slot]` (starting at 5) and 1 to
// `count[slot]`, so sum == 5 + amount * count and count is the number of
// packets, whichever ways they came; the probe carries out the cells
// before the packet.
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
    bit<16> pad;
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
    Register<bit<32>, bit<8>>(4) count;
    Register<bit<64>, bit<8>>(4, 64w5) sum;
    Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS) seen;

    action add() {
        @atomic {
            bit<32> n = count.read(hdr.probe.slot);
            bit<64> s = sum.read(hdr.probe.slot);
            hdr.probe.count = n;
            hdr.probe.sum = s;
            count.write(hdr.probe.slot, n + 1);
            sum.write(hdr.probe.slot, s + (bit<64>) hdr.probe.amount);
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
        if (hdr.probe.op == 0) {
            @atomic {
                seen.count(hdr.probe.slot);
                account.apply();
            }
        } else if (hdr.probe.op == 1) {
            @atomic {
                bit<32> n = count.read(hdr.probe.slot);
                bit<64> s = sum.read(hdr.probe.slot);
                hdr.probe.count = n;
                hdr.probe.sum = s;
                count.write(hdr.probe.slot, n + 1);
                sum.write(hdr.probe.slot, s + (bit<64>) hdr.probe.amount);
            }
        } else {
            account.apply();
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
