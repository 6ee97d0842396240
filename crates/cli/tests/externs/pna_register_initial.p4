// PNA registers with initial values in pna.p4's four-block PNA_NIC: a
// per-flow packet number that starts at a named constant and counts up,
// and a 48-bit stamp that starts all ones. The probe carries the index
// (and, when `op` is 1, a stamp to store) in; out, the number this packet
// got and the stamp before it.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8>  op;
    bit<16> index;
    bit<32> number;
    bit<48> stamp;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}

const bit<32> FIRST_NUMBER = 1000;

control PreControlImpl(in headers_t hdr, inout meta_t meta,
                       in pna_pre_input_metadata_t istd,
                       inout pna_pre_output_metadata_t ostd) {
    apply { }
}

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd,
                        inout pna_main_output_metadata_t ostd) {
    Register<bit<32>, bit<16>>(8, FIRST_NUMBER) numbers;
    Register<bit<48>, bit<16>>(8, 48w0xffffffffffff) stamps;
    apply {
        bit<32> number = numbers.read(hdr.probe.index);
        numbers.write(hdr.probe.index, number + 1);
        bit<48> stamp = stamps.read(hdr.probe.index);
        if (hdr.probe.op == 1) {
            stamps.write(hdr.probe.index, hdr.probe.stamp);
        }
        hdr.probe.number = number;
        hdr.probe.stamp = stamp;
        send_to_port(istd.input_port);
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;
