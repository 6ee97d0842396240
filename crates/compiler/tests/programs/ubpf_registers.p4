// ubpf_model: a Register counting packets per key, lookup3 hash, the
// ingress port, mark_to_drop and REDIRECT; a parser reject passes the
// packet unchanged.
#include <core.p4>
#include <ubpf_model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
// cmd 1: drop; cmd 2: redirect to `port`; else pass.
header rec_t { bit<8> cmd; bit<32> key; bit<32> count; bit<32> hash; bit<32> port; }

struct headers_t { eth_t eth; rec_t rec; }
struct meta_t { bit<32> seen; }

parser prs(packet_in p, out headers_t hdr, inout meta_t meta, inout standard_metadata std) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x88b5: record;
            default: reject;
        }
    }
    state record {
        p.extract(hdr.rec);
        transition accept;
    }
}

control pipe(inout headers_t hdr, inout meta_t meta, inout standard_metadata std) {
    Register<bit<32>, bit<32>>(16) counts;

    action count() {
        meta.seen = counts.read(hdr.rec.key) + 1;
        counts.write(hdr.rec.key, meta.seen);
    }

    apply {
        if (hdr.rec.cmd == 1) {
            mark_to_drop();
            return;
        }
        count();
        hdr.rec.count = meta.seen;
        hash(hdr.rec.hash, HashAlgorithm.lookup3, { hdr.rec.key, hdr.rec.port });
        if (hdr.rec.cmd == 2) {
            std.output_port = hdr.rec.port;
            std.output_action = ubpf_action.REDIRECT;
        }
        hdr.rec.port = std.input_port;
    }
}

control dprs(packet_out p, in headers_t hdr) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.rec);
    }
}

ubpf(prs(), pipe(), dprs()) main;
