// PNA's Checksum: a CRC over every update since the last clear(), the
// same as the CRC of the updates' data at once.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

// "123456789" in two parts, then room for the CRCs.
header digits_t {
    bit<32> first;
    bit<40> rest;
    bit<32> crc32_in_parts;
    bit<32> crc32_at_once;
    bit<16> crc16_in_parts;
}

struct headers_t {
    ethernet_t ethernet;
    digits_t digits;
}

struct meta_t {
}

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.digits);
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
    Checksum<bit<32>>(PNA_HashAlgorithm_t.CRC32) c32;
    Checksum<bit<16>>(PNA_HashAlgorithm_t.CRC16) c16;
    apply {
        c32.update(hdr.digits.first);
        c32.update(hdr.digits.rest);
        hdr.digits.crc32_in_parts = c32.get();
        c32.clear();
        c32.update({hdr.digits.first, hdr.digits.rest});
        hdr.digits.crc32_at_once = c32.get();
        c16.update(hdr.digits.first[31:24]);
        c16.update(hdr.digits.first[23:0]);
        c16.update(hdr.digits.rest);
        hdr.digits.crc16_in_parts = c16.get();
        send_to_port((PortId_t)1);
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.digits);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
