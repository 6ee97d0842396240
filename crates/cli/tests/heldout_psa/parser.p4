// Parser shapes: a select on three fields with a mask, a range and a
// wildcard; a header union; a header with fields wider than 64 bits
// (arithmetic carrying across 64 bits, a 72-bit xor); no match seen as
// error.NoMatch in ingress; a verify() failing in the egress parser,
// seen in egress's istd.parser_error.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header head_t {
    bit<8> a;
    bit<8> b;
    bit<16> c;
}

header short_t {
    bit<8> kind;
    bit<32> addr;
}

header long_t {
    bit<8> kind;
    bit<128> addr;
}

header_union address_t {
    short_t short;
    long_t long;
}

header wide_t {
    bit<96> id;
    bit<72> tag;
    bit<8> bigger;
}

struct headers_t {
    ethernet_t ethernet;
    head_t head;
    address_t address;
    wide_t wide;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.head);
        transition select(hdr.head.a, hdr.head.b, hdr.head.c) {
            (1, 0x10 &&& 0xf0, _): short_address;
            (1, _, 0x100 .. 0x1ff): long_address;
            (2, 2, 2): wide;
            (3 .. 5, _, _): accept;
        }
    }
    state short_address {
        pkt.extract(hdr.address.short);
        transition accept;
    }
    state long_address {
        pkt.extract(hdr.address.long);
        transition accept;
    }
    state wide {
        pkt.extract(hdr.wide);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t) 2);
        if (istd.parser_error == error.NoMatch) {
            hdr.head.c = 0xeeee;
            send_to_port(ostd, (PortId_t) 3);
        } else if (hdr.address.short.isValid()) {
            hdr.address.short.addr = hdr.address.short.addr + 1;
            send_to_port(ostd, (PortId_t) 4);
        } else if (hdr.address.long.isValid()) {
            hdr.address.long.addr[127:96] = 0x20010db8;
            hdr.address.long.addr = hdr.address.long.addr + 1;
            send_to_port(ostd, (PortId_t) 6);
        } else if (hdr.wide.isValid()) {
            hdr.wide.id = hdr.wide.id + 1;
            hdr.wide.tag = hdr.wide.tag ^ 0xff00000000000000ff;
            hdr.wide.bigger = hdr.wide.id > 0x10000000000000000 ? 8w1 : 8w0;
            send_to_port(ostd, (PortId_t) 5);
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.head);
        pkt.emit(hdr.address);
        pkt.emit(hdr.wide);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.head);
        verify(hdr.head.a != 4, error.ParserInvalidArgument);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.parser_error == error.ParserInvalidArgument) {
            hdr.head.b = 0xee;
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.head);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
