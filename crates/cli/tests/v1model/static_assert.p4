// core.p4's `static_assert`, one- and two-argument, as a constant's value,
// as a statement in a function, an action and a control, and nested: all
// are evaluated at compile time and leave nothing to run; the program
// forwards by the frame's type.
#include <core.p4>
#include <v1model.p4>

const bit<8> PORTS = 6;
const bool ports_fit = static_assert(PORTS < 8, "ports must fit bit<3>");

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { bit<8> unused; }

bit<9> port_of(in bit<16> type) {
    static_assert(PORTS > 1);
    return (bit<9>)type[2:0];
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action mark() {
        static_assert(static_assert(ports_fit, "nested"));
        hdr.eth.src = (bit<48>)PORTS;
    }
    apply {
        static_assert(V1MODEL_VERSION >= 20180101, "an old v1model.p4");
        sm.egress_spec = port_of(hdr.eth.type);
        mark();
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
