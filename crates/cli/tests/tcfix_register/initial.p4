// Registers of a struct (fields of 8, 48 and 104 bits), of a 100-bit bit
// string, and of a struct at a struct index, each with an initial value
// (PSA 1.2 `Register(bit<32> size, T initial_value)`). Ingress writes the
// cells the packet names when `op` is 1, then reads them into the packet.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<8> op;
    bit<8> idx;
    bit<8> a;
    bit<48> b;
    bit<104> w;
    bit<100> x;
    bit<4> pad;
    bit<16> k;
}
struct cell_t { bit<8> a; bit<48> b; bit<104> w; }
struct key_t { bit<16> k; bit<8> idx; }
struct headers_t { h_t h; }
struct meta_t {}
struct empty_t {}

const cell_t INITIAL = { a = 0x5a, b = 0x0102030405ff, w = 0x11223344556677889900aabbcc };

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Register<cell_t, bit<32>>(4, INITIAL) cells;
    Register<bit<100>, bit<32>>(4, 100w0xf0000000000000000000000a5) wide;
    Register<cell_t, key_t>(16, { 0x01, 0x0000000000ee, 104w1 }) keyed;
    apply {
        send_to_port(ostd, (PortId_t)32w2);
        bit<32> i = (bit<32>)hdr.h.idx;
        key_t key = { k = hdr.h.k, idx = hdr.h.idx };
        if (hdr.h.op == 1) {
            cell_t v = { a = hdr.h.a, b = hdr.h.b, w = hdr.h.w };
            cells.write(i, v);
            wide.write(i, hdr.h.x);
            keyed.write(key, v);
        }
        cell_t c = cells.read(i);
        cell_t d = keyed.read(key);
        hdr.h.a = c.a;
        hdr.h.b = c.b;
        hdr.h.w = c.w ^ d.w;
        hdr.h.x = wide.read(i);
        hdr.h.k = d.a ++ d.b[7:0];
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
