// Compiler: a parser loop over a header stack; pop_front in the filter (not written back: ebpf_model).
#include <core.p4>
#include <ebpf_model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header label_t {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}

struct headers_t {
    ethernet_t eth;
    label_t[4] labels;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x8847: label;
            default: accept;
        }
    }
    state label {
        p.extract(hdr.labels.next);
        transition select(hdr.labels.last.bos) {
            0: label;
            1: accept;
        }
    }
}

control pipe(inout headers_t hdr, out bool pass) {
    apply {
        // Pass packets with two labels or more whose second label is 16
        // (`last` and `lastIndex` exist only in parsers).
        pass = hdr.labels[1].isValid() && hdr.labels[1].label == 16;
        hdr.labels.pop_front(1);
    }
}

ebpfFilter(prs(), pipe()) main;
