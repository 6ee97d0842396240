// `@atomic` blocks that no lock can hold: each may leave by a packet
// error's jump (to `reject`, or out of the deparser) that no release
// would follow, so each runs as written, with a warning at the statement
// that prevents the lock. The test finds each by its `// why:` mark.
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

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    Register<bit<32>, bit<8>>(4) parsed;
    state start {
        @atomic {
            parsed.write(0, parsed.read(0) + 1);
            pkt.extract(hdr.ethernet); // why: extracts or skips packet bytes
        }
        @atomic {
            bit<8> next = pkt.lookahead<bit<8>>(); // why: looks ahead in the packet
            parsed.write(next, 1);
        }
        @atomic {
            parsed.write(1, parsed.read(1) + 1);
            verify(hdr.ethernet.ether_type == 0x9000, error.NoMatch); // why: verifies
        }
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    Register<bit<32>, bit<8>>(1) sent;
    apply {
        @atomic {
            sent.write(0, sent.read(0) + 1);
            pkt.emit(hdr.ethernet); // why: emits a header
        }
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
