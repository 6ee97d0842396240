// v1model digests: a learning digest from an action (a list given as
// the struct), and a second digest of a struct with odd widths, a bool
// and a 70-bit field sent by a packet that is then dropped (BMv2 sends
// digests whatever the fate of the packet).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct mac_learn_digest_t { bit<48> srcAddr; bit<9> ingress_port; }
struct odd_t { bit<3> a; bit<13> b; bool c; bit<70> wide; bit<1> d; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action learn() {
        digest<mac_learn_digest_t>(1, { hdr.ethernet.srcAddr, sm.ingress_port });
    }
    table smac {
        key = { hdr.ethernet.srcAddr : exact; }
        actions = { learn; NoAction; }
        default_action = learn();
    }
    apply {
        smac.apply();
        if (hdr.ethernet.etherType == 0x88b5) {
            odd_t o;
            o.a = 5; o.b = 0x1abc; o.c = true; o.wide = (bit<70>)hdr.ethernet.dstAddr; o.d = 1;
            digest(2, o);
            mark_to_drop(sm);
        } else {
            sm.egress_spec = 2;
        }
        hdr.ethernet.srcAddr = 0;
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
