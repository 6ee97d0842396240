// A control taking a register as a parameter: two instances of it, each
// applied with its own register, count separately; the count lands in
// the source's low bits.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control Bump(inout headers_t hdr, register<bit<16>> seen, in bit<32> slot) {
    apply {
        bit<16> n;
        seen.read(n, slot);
        n = n + 1;
        seen.write(slot, n);
        hdr.eth.src[15:0] = n;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<16>>(4) ones;
    register<bit<16>>(4) others;
    Bump() count_ones;
    Bump() count_others;
    apply {
        if (hdr.eth.type == 1) {
            count_ones.apply(hdr, ones, (bit<32>)hdr.eth.dst[1:0]);
        } else {
            count_others.apply(slot = 0, seen = others, hdr = hdr);
        }
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
