// PNA digests (P4TC's three-block flavour), packed in the main deparser:
// the source address and input port of every frame whose EtherType is
// 0x88b5, with a flag the main control sets; the frame goes to port 2.
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

struct seen_t {
    bit<48> src;
    PortId_t port;
    bool flagged;
}

struct meta_t {
    bool report;
    seen_t seen;
}

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
    apply {
        m.report = hdr.ethernet.etherType == 0x88b5;
        m.seen.src = hdr.ethernet.src;
        m.seen.port = istd.input_port;
        m.seen.flagged = hdr.ethernet.dst == 0xffffffffffff;
        send_to_port((PortId_t) 2);
    }
}

control D(packet_out pkt, inout headers_t hdr, in meta_t m,
          in pna_main_output_metadata_t ostd) {
    Digest<seen_t>() seen;
    apply {
        if (m.report) {
            seen.pack(m.seen);
        }
        pkt.emit(hdr.ethernet);
    }
}

PNA_NIC(P(), C(), D()) main;
