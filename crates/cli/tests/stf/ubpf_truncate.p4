// ubpf_model's truncate: the packet leaves with at most `len` bytes,
// cut after the pipeline and deparser wrote it; the last call wins.
#include <core.p4>
#include <ubpf_model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header cut_t { bit<8> len; bit<8> twice; bit<8> mark; }

struct headers_t { eth_t eth; cut_t cut; }
struct meta_t { }

parser prs(packet_in p, out headers_t hdr, inout meta_t meta, inout standard_metadata std) {
    state start {
        p.extract(hdr.eth);
        p.extract(hdr.cut);
        transition accept;
    }
}

control pipe(inout headers_t hdr, inout meta_t meta, inout standard_metadata std) {
    apply {
        hdr.cut.mark = 0xee;
        if (hdr.cut.twice == 1) {
            truncate(64);
        }
        if (hdr.cut.len != 0) {
            truncate((bit<32>)hdr.cut.len);
        }
    }
}

control dprs(packet_out p, in headers_t hdr) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.cut);
    }
}

ubpf(prs(), pipe(), dprs()) main;
