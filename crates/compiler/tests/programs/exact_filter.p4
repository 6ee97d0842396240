// ebpf_model: an exact-match table with a parameterized action and a runtime default.
#include <core.p4>
#include <ebpf_model.p4>
#include "headers.p4"

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition accept;
    }
}

control pipe(inout headers_t hdr, out bool pass) {
    action allow() { pass = true; }
    action deny(bit<8> reason) { pass = reason == 0; }
    table acl {
        key = { hdr.ipv4.src : exact; hdr.ipv4.protocol : exact; }
        actions = { allow; deny; }
        default_action = allow();
        implementation = hash_table(256);
    }
    apply {
        pass = false;
        if (hdr.ipv4.isValid()) {
            acl.apply();
        }
    }
}

ebpfFilter(prs(), pipe()) main;
