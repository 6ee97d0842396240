// ebpf_model: two parser value sets, one whose members are matched by
// ternary and lpm fields (an array of slots a select scans) and one
// all-exact (a hash set, looked up once).
#include <core.p4>
#include <ebpf_model.p4>
#include "headers.p4"

struct proto_port_t {
    @match(ternary) bit<8> protocol;
    @match(lpm)     bit<16> ether_type;
}

parser prs(packet_in p, out headers_t hdr) {
    value_set<proto_port_t>(8) classes;
    value_set<bit<16>>(4) plain_types;
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x0800: ipv4;
            plain_types: accept;
            default: reject;
        }
    }
    state ipv4 {
        p.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol, hdr.eth.ether_type) {
            classes: accept;
            default: reject;
        }
    }
}

control pipe(inout headers_t hdr, out bool pass) {
    apply {
        pass = true;
    }
}

ebpfFilter(prs(), pipe()) main;
