// Trace: register reads and writes (a per-packet sequence number kept
// in a Register and written into the packet) show their arguments and
// results.
#include <core.p4>
#define UBPF_MODEL_VERSION 20200515
#include <ubpf_model.p4>
header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}
struct headers_t { ethernet_t eth; }
struct meta_t { }
parser prs(packet_in p, out headers_t hdr, inout meta_t meta, inout standard_metadata std) {
    state start {
        p.extract(hdr.eth);
        transition accept;
    }
}
control pipe(inout headers_t hdr, inout meta_t meta, inout standard_metadata std) {
    Register<bit<16>, bit<32>>(4) seen;
    apply {
        bit<16> n = seen.read(2);
        seen.write(2, n + 1);
        hdr.eth.ether_type = n;
    }
}
control dep(packet_out p, in headers_t hdr) {
    apply { p.emit(hdr.eth); }
}
ubpf(prs(), pipe(), dep()) main;
