// A value set of each kind (exact: a hash set; ternary: scanned slots)
// probed four times in one parse, one select per probe key. Each probe
// that finds a member sets its bit in the set's mark, so the packet comes
// back with the membership pattern one parse saw: p4rt_vset_atomic.rs
// rewrites the sets while packets run and checks every pattern is the
// whole of the old members or the whole of the new.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<16> k0;
    bit<16> k1;
    bit<16> k2;
    bit<16> k3;
    bit<8>  m_exact;
    bit<8>  m_tern;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}
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
        pkt.extract(hdr.probe);
        transition e0;
    }
    state e0 {
        transition select(hdr.probe.k0) {
            exact_set: e0_in;
            default: e1;
        }
    }
    state e0_in {
        hdr.probe.m_exact = hdr.probe.m_exact | 8w1;
        transition e1;
    }
    state e1 {
        transition select(hdr.probe.k1) {
            exact_set: e1_in;
            default: e2;
        }
    }
    state e1_in {
        hdr.probe.m_exact = hdr.probe.m_exact | 8w2;
        transition e2;
    }
    state e2 {
        transition select(hdr.probe.k2) {
            exact_set: e2_in;
            default: e3;
        }
    }
    state e2_in {
        hdr.probe.m_exact = hdr.probe.m_exact | 8w4;
        transition e3;
    }
    state e3 {
        transition select(hdr.probe.k3) {
            exact_set: e3_in;
            default: t0;
        }
    }
    state e3_in {
        hdr.probe.m_exact = hdr.probe.m_exact | 8w8;
        transition t0;
    }
    state t0 {
        transition select(hdr.probe.k0) {
            tern_set: t0_in;
            default: t1;
        }
    }
    state t0_in {
        hdr.probe.m_tern = hdr.probe.m_tern | 8w1;
        transition t1;
    }
    state t1 {
        transition select(hdr.probe.k1) {
            tern_set: t1_in;
            default: t2;
        }
    }
    state t1_in {
        hdr.probe.m_tern = hdr.probe.m_tern | 8w2;
        transition t2;
    }
    state t2 {
        transition select(hdr.probe.k2) {
            tern_set: t2_in;
            default: t3;
        }
    }
    state t2_in {
        hdr.probe.m_tern = hdr.probe.m_tern | 8w4;
        transition t3;
    }
    state t3 {
        transition select(hdr.probe.k3) {
            tern_set: t3_in;
            default: accept;
        }
    }
    state t3_in {
        hdr.probe.m_tern = hdr.probe.m_tern | 8w8;
        transition accept;
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
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.probe); }
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
