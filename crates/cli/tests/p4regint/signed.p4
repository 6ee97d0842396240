// Signed values from the control plane, read by the data path: a
// register of a struct of int<8>, int<16>, int<33> and bit<8> fields
// (`cells`), the same with a negative initial value (`seeded`), plain
// int<8> and int<33> registers, registers indexed by a struct and by a
// bit<72>, and a table whose key and action parameter are ints.
//
// The frame is h_t. `op` 1 copies cells[idx] into a, b, c, d (c
// sign-extended to 40 bits), 2 the same of seeded[idx], 3 writes a, b, c,
// d into cells[idx], 4 copies small[idx] into a and big[idx] into c, 5
// copies by_key[{idx, a}] into b and by_wide[(bit<72>)idx] into d. The
// table `signs`, keyed by `a` and the int<12> `e`, sets b, e and c
// (sign-extended) to its parameters.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<8> op;
    bit<8> idx;
    int<8> a;
    int<16> b;
    int<40> c;
    bit<8> d;
    int<12> e;
    bit<4> pad;
}
struct sv_t { int<8> a; int<16> b; int<33> c; bit<8> d; }
struct key_t { bit<8> idx; int<8> a; }
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
    Register<sv_t, bit<32>>(4) cells;
    Register<sv_t, bit<32>>(2, { a = -3, b = -300, c = -5, d = 7 }) seeded;
    Register<int<8>, bit<32>>(4) small;
    Register<int<33>, bit<32>>(4) big;
    Register<int<16>, key_t>(8) by_key;
    Register<bit<8>, bit<72>>(8) by_wide;

    action set_b(int<16> v, int<12> w) { hdr.h.b = v; hdr.h.e = w; hdr.h.c = (int<40>)w; }
    table signs {
        key = { hdr.h.a : exact; hdr.h.e : exact; }
        actions = { set_b; NoAction; }
        default_action = NoAction();
    }

    apply {
        send_to_port(ostd, (PortId_t)32w2);
        bit<32> i = (bit<32>)hdr.h.idx;
        sv_t v;
        if (hdr.h.op == 1 || hdr.h.op == 2) {
            if (hdr.h.op == 1) { v = cells.read(i); } else { v = seeded.read(i); }
            hdr.h.a = v.a;
            hdr.h.b = v.b;
            hdr.h.c = (int<40>)v.c;
            hdr.h.d = v.d;
        } else if (hdr.h.op == 3) {
            v = { a = hdr.h.a, b = hdr.h.b, c = (int<33>)hdr.h.c, d = hdr.h.d };
            cells.write(i, v);
        } else if (hdr.h.op == 4) {
            hdr.h.a = small.read(i);
            hdr.h.c = (int<40>)big.read(i);
        } else if (hdr.h.op == 5) {
            hdr.h.b = by_key.read({ idx = hdr.h.idx, a = hdr.h.a });
            hdr.h.d = by_wide.read((bit<72>)hdr.h.idx);
        } else {
            signs.apply();
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
