// A sum and a count kept together under `@atomic`: each packet adds its
// `amount` to `sum[slot]` (which starts at 5) and 1 to `count[slot]`, so
// sum == 5 + amount * count holds after any number of packets from any
// CPUs, and `count` is exactly the number of packets. The probe carries
// out what the cells held before the packet. The block computes its index
// first (work on the packet's own state, before the lock). A second block, on its own
// register (so its own lock), counts `hits`, reading its cell again after
// writing it. `op` 1 leaves the first block by `exit`, 2 the second by
// `return` after choosing port 3; the others reach the end, which marks
// the probe with op 0xff. A slot past the end (4 cells) reads 0 and 5
// and writes nothing. Egress counts the packets that leave in
// `departed`, and the ingress parser those it parses in `parsed`, each
// under a lock of its own.
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
    bit<16> hits;
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
    Register<bit<32>, bit<8>>(1) parsed;
    state start {
        @atomic {
            parsed.write(0, parsed.read(0) + 1);
        }
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
    Register<bit<16>, bit<8>>(1) hits;
    apply {
        send_to_port(ostd, (PortId_t) 2);
        @atomic {
            bit<8> at = hdr.probe.slot;
            bit<32> n = count.read(at);
            bit<64> s = sum.read(at);
            hdr.probe.count = n;
            hdr.probe.sum = s;
            count.write(at, n + 1);
            sum.write(at, s + (bit<64>) hdr.probe.amount);
            if (hdr.probe.op == 1) {
                exit;
            }
        }
        @atomic {
            hits.write(0, hits.read(0) + 1);
            hdr.probe.hits = hits.read(0);
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
    Register<bit<32>, bit<8>>(1) departed;
    apply {
        @atomic {
            departed.write(0, departed.read(0) + 1);
        }
    }
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
