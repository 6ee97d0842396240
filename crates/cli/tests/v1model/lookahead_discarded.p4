// `p.lookahead<T>();` with its value unused: it reads nothing the program
// keeps, but a packet shorter than T is still PacketTooShort, which
// reaches ingress; T may be a struct of bit strings.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct probe_t { bit<32> first; bit<16> second; }
struct headers_t { eth_t eth; }
struct meta_t { bit<8> unused; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        pkt.lookahead<probe_t>();
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.PacketTooShort) {
            sm.egress_spec = 7;
        } else {
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
