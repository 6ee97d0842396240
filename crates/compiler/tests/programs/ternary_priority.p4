// ebpf_model: a ternary table (tuple-space search, priorities) and a counter array.
#include <core.p4>
#include <ebpf_model.p4>
#include "headers.p4"

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
        key = { hdr.ipv4.dst : ternary; hdr.ipv4.protocol : ternary; }
        actions = { set; NoAction; }
        const default_action = NoAction;
    }
    apply {
        pass = true;
        switch (classify.apply().action_run) {
            set: { hits.add(15, 1); }
            default: { }
        }
    }
}

ebpfFilter(prs(), pipe()) main;
