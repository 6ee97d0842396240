// Non-const entries on an lpm table (with an exact key beside it), the
// longest prefix winning whatever the written order; the fallback port is
// ingress's constructor argument, given by main.
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { bit<8> unused; }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)(bit<9> fallback) {
    action to(bit<9> port) { sm.egress_spec = port; }
    action fb() { sm.egress_spec = fallback; }
    table routes {
        key = { hdr.eth.dst : lpm; hdr.eth.type : exact; }
        actions = { to; fb; }
        default_action = fb;
        entries = {
            (0x0a0000000000 &&& 0xff0000000000, 0x0800) : to(2);
            (0x0a0100000000 &&& 0xffff00000000, 0x0800) : to(3);
            (0x0b0000000000, 0x0800) : to(4);
        }
    }
    apply { routes.apply(); }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }
V1Switch(MyParser(), MyVerify(), MyIngress(7), MyEgress(), MyCompute(), MyDeparser()) main;
