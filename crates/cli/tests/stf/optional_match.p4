// ebpf_model: `optional` keys (exact or left out) beside an exact-width
// ternary key; priorities decide between overlapping entries.
#include <core.p4>
#include <ebpf_model.p4>

match_kind { optional }

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<32> id_flags_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}

struct headers_t {
    ethernet_t eth;
    ipv4_t     ipv4;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        p.extract(hdr.ipv4);
        transition accept;
    }
}

control pipe(inout headers_t hdr, out bool pass) {
    CounterArray(32w16, false) hits;
    action set(bool v, bit<32> slot) { pass = v; hits.increment(slot); }
    table classify {
        key = { hdr.ipv4.dst : optional; hdr.ipv4.protocol : optional; }
        actions = { set; NoAction; }
        const default_action = NoAction;
    }
    apply {
        pass = true;
        classify.apply();
    }
}

ebpfFilter(prs(), pipe()) main;
