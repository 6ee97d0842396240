// `*` on bit strings wider than 64 bits: the product cut to the width
// (modulo 2^width), for a whole-byte width (128) and an odd one (71, in
// variables cast from and to 72-bit fields).
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

header operands_t {
    bit<128> a;
    bit<128> b;
    bit<128> product;
    bit<72>  c;
    bit<72>  d;
    bit<72>  odd_product;
}

struct headers_t {
    ethernet_t ethernet;
    operands_t operands;
}

struct meta_t {
}

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.operands);
        transition accept;
    }
}

control PreControl(in headers_t hdr, inout meta_t meta,
                   in pna_pre_input_metadata_t istd,
                   inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControl(inout headers_t hdr, inout meta_t meta,
                    in pna_main_input_metadata_t istd,
                    inout pna_main_output_metadata_t ostd) {
    apply {
        hdr.operands.product = hdr.operands.a * hdr.operands.b;
        bit<71> c = (bit<71>)hdr.operands.c;
        bit<71> d = (bit<71>)hdr.operands.d;
        hdr.operands.odd_product = (bit<72>)(c * d);
        send_to_port((PortId_t)1);
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.operands);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
