// PNA digests whose data is not a struct (P4TC's digest_01 packs a
// `bit<32>`): a 16-bit EtherType, a 96-bit pair of addresses (wider than
// a machine word) and a bool, each packed alone; the field is `value`.
#include <core.p4>
#include <tc/pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m,
         in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control C(inout headers_t hdr, inout meta_t m,
          in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    apply { send_to_port((PortId_t) 2); }
}

control D(packet_out pkt, inout headers_t hdr, in meta_t m,
          in pna_main_output_metadata_t ostd) {
    Digest<bit<16>>() kind;
    Digest<bit<96>>() pair;
    Digest<bool>() broadcast;
    apply {
        kind.pack(hdr.ethernet.etherType);
        if (hdr.ethernet.etherType == 0x88b5) {
            pair.pack(hdr.ethernet.dst ++ hdr.ethernet.src);
            broadcast.pack(hdr.ethernet.dst == 0xffffffffffff);
        }
        pkt.emit(hdr.ethernet);
    }
}

PNA_NIC(P(), C(), D()) main;
