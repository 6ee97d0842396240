// A read past a register's end gives the register's initial value
// (p4bpf's one rule for PSA's unspecified out-of-range read), whatever
// the register holds: a struct (`cells`), a bit string wider than 64
// bits (`wide`, kept as a struct too) or a narrow bit string (`narrow`).
// Ingress writes the cells at `idx` when `op` is 1 (a write past the end
// is lost), then reads all three at `idx` into the packet.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<8> op;
    bit<8> idx;
    bit<8> a;
    bit<48> b;
    bit<100> x;
    bit<4> pad;
    bit<32> n;
}
struct cell_t { bit<8> a; bit<48> b; }
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
    Register<cell_t, bit<32>>(4, { a = 0x5a, b = 0x0102030405ff }) cells;
    Register<bit<100>, bit<32>>(4, 100w0xf000000000000000000000a5c) wide;
    Register<bit<32>, bit<32>>(4, 32w0xc0ffee01) narrow;
    apply {
        send_to_port(ostd, (PortId_t)32w2);
        bit<32> i = (bit<32>)hdr.h.idx;
        if (hdr.h.op == 1) {
            cell_t v = { a = hdr.h.a, b = hdr.h.b };
            cells.write(i, v);
            wide.write(i, hdr.h.x);
            narrow.write(i, hdr.h.n);
        }
        cell_t c = cells.read(i);
        hdr.h.a = c.a;
        hdr.h.b = c.b;
        hdr.h.x = wide.read(i);
        hdr.h.n = narrow.read(i);
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
