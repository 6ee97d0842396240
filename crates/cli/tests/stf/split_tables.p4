// ebpf_model: four three-field ternary tables after a parser with two
// outcomes, more than the verifier walks inline, so the compiler applies
// the costliest through global functions verified on their own (here
// `audit`, walked after a branch, and `filter`). Checks that a moved-out
// table still reports `action_run`, that `exit` in one still leaves the
// control, and that the tables left inline still see what the others
// wrote.
#include <core.p4>
#include <ebpf_model.p4>

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
        transition select(hdr.eth.ether_type) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition accept;
    }
}

control pipe(inout headers_t hdr, out bool pass) {
    CounterArray(32w8, false) seen;
    action set_tos(bit<8> tos) { hdr.ipv4.tos = tos; }
    action reject() { pass = false; exit; }
    action count(bit<32> slot) { seen.increment(slot); }
    table mark {
        key = { hdr.ipv4.dst: ternary; hdr.ipv4.protocol: ternary; hdr.ipv4.ttl: ternary; }
        actions = { set_tos; NoAction; }
        default_action = NoAction();
    }
    table filter {
        key = { hdr.ipv4.tos: ternary; hdr.ipv4.src: ternary; hdr.ipv4.protocol: ternary; }
        actions = { reject; NoAction; }
        default_action = NoAction();
    }
    table tally {
        key = { hdr.ipv4.tos: ternary; hdr.ipv4.dst: ternary; hdr.ipv4.ttl: ternary; }
        actions = { count; NoAction; }
        default_action = count(0);
    }
    table audit {
        key = { hdr.ipv4.src: ternary; hdr.ipv4.dst: ternary; hdr.ipv4.protocol: ternary; }
        actions = { count; NoAction; }
        default_action = NoAction();
    }
    apply {
        pass = true;
        mark.apply();
        filter.apply();
        if (tally.apply().hit) {
            seen.increment(7);
        }
        switch (audit.apply().action_run) {
            count: { seen.increment(6); }
        }
    }
}

ebpfFilter(prs(), pipe()) main;
