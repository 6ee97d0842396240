// P4 loops the verifier cannot walk inline (run-time bounds, nesting),
// run by bpf_loop: three nested loops with break and continue in an
// action taking a parameter, `return` from inside a loop in an action,
// a loop in ingress that applies a table each round, and `exit` from
// inside a nested loop in ingress.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header work_t { bit<8> n; bit<8> m; bit<16> product; bit<8> found; bit<8> hits; bit<8> last; }
struct headers_t { eth_t eth; work_t w; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.w); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    // n x m x step rounds, leaving out j == 2 and stopping k at 3.
    action cube(bit<8> step) {
        hdr.w.product = 0;
        for (bit<8> i = 0; i < hdr.w.n; i = i + 1) {
            for (bit<8> j = 0; j < hdr.w.m; j = j + 1) {
                if (j == 2) { continue; }
                for (bit<8> k = 0; k < step; k = k + 1) {
                    if (k == 3) { break; }
                    hdr.w.product = hdr.w.product + 1;
                }
            }
        }
    }
    // The first i (from 1) whose square is above n; the rest of the
    // action does not run.
    action first_square() {
        for (bit<8> i = 1; i <= hdr.w.n; i = i + 1) {
            if (i * i > hdr.w.n) {
                hdr.w.found = i;
                return;
            }
        }
        hdr.w.found = 0xff;
    }
    action hit() { hdr.w.hits = hdr.w.hits + 1; }
    table odd {
        key = { hdr.w.last : exact; }
        actions = { hit; NoAction; }
        const entries = { 1 : hit(); 3 : hit(); 5 : hit(); 7 : hit(); }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        cube(hdr.eth.src[7:0]);
        first_square();
        for (bit<8> v = 0; v < hdr.w.m; v = v + 1) {
            hdr.w.last = v;
            odd.apply();
        }
        // exit from two loops deep when n is 0x40: egress_spec stays 1.
        for (bit<8> a = 0; a < hdr.w.n; a = a + 1) {
            for (bit<8> b = 0; b < hdr.w.n; b = b + 1) {
                if (a + b == 0x40) {
                    exit;
                }
            }
        }
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.w); }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
