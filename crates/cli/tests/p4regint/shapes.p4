// Other shapes of signed registers: an int<12> register with a negative
// initial value, a struct of an int<12>, a nested struct of an int<4> and
// a bit<4>, and an int<64> (negative initial values), and a plain int<64>
// register. The frame is h_t: `op` 1 copies twelve[idx] into x, 2
// evs[idx]'s t, inner.n and z into x, y and z, 3 sixty4[idx] into z, and
// 4 writes x into twelve[idx] and x, y, z into evs[idx].
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<8> op;
    bit<8> idx;
    int<16> x;
    int<16> y;
    int<64> z;
}
struct in_t { int<4> n; bit<4> m; }
struct ev_t { int<12> t; in_t inner; int<64> z; }
struct headers_t { h_t h; }
struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Register<int<12>, bit<32>>(4, -2) twelve;
    Register<ev_t, bit<32>>(2, { t = -7, inner = { n = -8, m = 3 }, z = -9 }) evs;
    Register<int<64>, bit<32>>(2) sixty4;

    apply {
        send_to_port(ostd, (PortId_t)32w2);
        bit<32> i = (bit<32>)hdr.h.idx;
        if (hdr.h.op == 1) {
            hdr.h.x = (int<16>)twelve.read(i);
        } else if (hdr.h.op == 2) {
            ev_t v = evs.read(i);
            hdr.h.x = (int<16>)v.t;
            hdr.h.y = (int<16>)v.inner.n;
            hdr.h.z = v.z;
        } else if (hdr.h.op == 3) {
            hdr.h.z = sixty4.read(i);
        } else if (hdr.h.op == 4) {
            twelve.write(i, (int<12>)hdr.h.x);
            ev_t w = { t = (int<12>)hdr.h.x, inner = { n = (int<4>)hdr.h.y, m = 0 }, z = hdr.h.z };
            evs.write(i, w);
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.h); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
}
control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) { apply { } }
control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
