// `main` with its blocks passed by name, in another order than V1Switch
// declares them: each block still fills its own role (ingress sets the
// port, egress marks the frame after it). A checksum call with its
// arguments passed by name, shuffled too.
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

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>)hdr.eth.type[3:0];
        hdr.eth.src = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.eth.src = hdr.eth.src + 1; }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(data = { hdr.eth.dst },
                        algo = HashAlgorithm.csum16,
                        checksum = hdr.eth.type,
                        condition = hdr.eth.type == 0x1239);
    }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); }
}

V1Switch(dep = MyDeparser(),
         eg = MyEgress(),
         p = MyParser(),
         ck = MyCompute(),
         ig = MyIngress(),
         vr = MyVerify()) main;
