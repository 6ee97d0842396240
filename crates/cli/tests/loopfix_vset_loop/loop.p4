// A parser loop probing a value set of each kind (exact: a hash set;
// ternary: scanned slots) once per turn, four turns, one key per turn.
// The cycle extracts no header-stack element, so it compiles to a loop
// function called once per state (emit/parser_loop.rs). Each turn shifts
// the set's mark left and sets its low bit when the key is a member, so
// the packet comes back with the membership pattern its whole parse saw:
// loopfix_vset_loop.rs rewrites the sets while packets run and checks
// every pattern is the whole of the old members or the whole of the new.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header marks_t {
    bit<8> m_exact;
    bit<8> m_tern;
}

header key_t {
    bit<16> k;
}

struct headers_t {
    ethernet_t ethernet;
    marks_t marks;
    key_t key;
}

struct meta_t {
    bit<8> turns;
}
struct empty_t {}

struct tern_t {
    @match(ternary) bit<16> k;
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    value_set<bit<16>>(8) exact_set;
    value_set<tern_t>(8) tern_set;
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.marks);
        meta.turns = 0;
        transition walk;
    }
    state walk {
        pkt.extract(hdr.key);
        hdr.marks.m_exact = hdr.marks.m_exact << 1;
        hdr.marks.m_tern = hdr.marks.m_tern << 1;
        meta.turns = meta.turns + 1;
        transition select(hdr.key.k) {
            exact_set: exact_in;
            default: tern;
        }
    }
    state exact_in {
        hdr.marks.m_exact = hdr.marks.m_exact | 8w1;
        transition tern;
    }
    state tern {
        transition select(hdr.key.k) {
            tern_set: tern_in;
            default: turn;
        }
    }
    state tern_in {
        hdr.marks.m_tern = hdr.marks.m_tern | 8w1;
        transition turn;
    }
    state turn {
        transition select(meta.turns) {
            4: accept;
            default: walk;
        }
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply { send_to_port(ostd, (PortId_t) 32w1); }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.marks); pkt.emit(hdr.key); }
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
