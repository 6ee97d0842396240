// Registers for P4Runtime's RegisterEntry: a bit<16> register with an
// initial value, a register of a struct holding a bool, a nested struct
// and a 72-bit field (initial value given), a bit<8> register without
// one, an int<8> and an int<12> register, and a struct holding an int<8>.
// Ingress writes cell `idx` of the first five when `op` is 1: `count`,
// the struct, `idx`, -`idx` and -`idx`; `count` leaves as `offsets[idx]`
// sign-extended when `op` is 2, else as `totals[idx]`.
#include <core.p4>
#include <psa.p4>

header h_t {
    bit<8> op;
    bit<8> idx;
    bit<16> count;
    bit<7> pad;
    bool flag;
    bit<72> tag;
}
struct inner_t { bit<72> tag; bit<8> small; }
struct cell_t { bit<16> count; bool flag; inner_t inner; }
struct pair_t { int<8> delta; bit<8> small; }
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
    Register<bit<16>, bit<32>>(6, 16w0x0a0b) totals;
    Register<cell_t, bit<32>>(4, { count = 7, flag = true, inner = { 72w0x1, 8w2 } }) cells;
    Register<bit<8>, bit<32>>(4) bare;
    Register<int<8>, bit<32>>(4) deltas;
    Register<int<12>, bit<32>>(4) offsets;
    Register<pair_t, bit<32>>(2) pairs;
    apply {
        send_to_port(ostd, (PortId_t)32w2);
        if (hdr.h.op == 1) {
            totals.write((bit<32>)hdr.h.idx, hdr.h.count);
            cell_t v = { count = hdr.h.count, flag = hdr.h.flag,
                         inner = { tag = hdr.h.tag, small = hdr.h.idx } };
            cells.write((bit<32>)hdr.h.idx, v);
            bare.write((bit<32>)hdr.h.idx, hdr.h.idx);
            deltas.write((bit<32>)hdr.h.idx, 8s0 - (int<8>)hdr.h.idx);
            offsets.write((bit<32>)hdr.h.idx, 12s0 - (int<12>)(bit<12>)hdr.h.idx);
        }
        if (hdr.h.op == 2) {
            hdr.h.count = (bit<16>)(int<16>)offsets.read((bit<32>)hdr.h.idx);
        } else {
            hdr.h.count = totals.read((bit<32>)hdr.h.idx);
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
