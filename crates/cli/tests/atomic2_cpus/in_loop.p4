// An `@atomic` block inside a loop run in `bpf_loop` rounds (its bound is
// the packet's), which counts in a Counter (a helper call: a lock word,
// taken by a nested `bpf_loop` when contended) and leaves the control by
// `return` from inside the block at slot `op`. Round i adds what
// `count[i]` held to the probe's `sum` and adds 1 to it. A word the
// `return` kept would make every later block be skipped: the sums the
// STF expects show that each packet's blocks ran.
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
    Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS) seen;

    apply {
        send_to_port(ostd, (PortId_t) 2);
        for (bit<8> i = 0; i < hdr.probe.slot; i = i + 1) {
            @atomic {
                seen.count(i);
                bit<32> n = count.read(i);
                count.write(i, n + 1);
                hdr.probe.sum = hdr.probe.sum + (bit<64>) n;
                if (i == hdr.probe.op) {
                    return;
                }
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
