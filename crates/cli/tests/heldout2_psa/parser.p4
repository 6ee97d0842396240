// Parser features in shapes not yet tried: lookahead of a header (into
// metadata) and of a bit field (in a select), `advance` over bytes that
// are then gone from the packet, `verify` with an error of the program's
// own and stack overflow seen in ingress's parser_error, a label stack
// parsed with .next/.last in the egress parser and shifted with
// push_front (a full stack: its last element falls off) in egress, a
// header union whose other member egress makes valid.
#include <core.p4>
#include <psa.p4>

error { BadTag }

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<4> kind;
    bit<12> val;
}

// What ingress saw (err, peek, which) and egress counted (depth).
header mark_t {
    bit<8> err;
    bit<8> depth;
    bit<8> peek;
    bit<8> which;
}

header label_t {
    bit<20> label;
    bit<3> tc;
    bit<1> bos;
    bit<8> ttl;
}

header a_t {
    bit<8> x;
    bit<8> y;
}

header b_t {
    bit<16> z;
    bit<16> w;
}

header_union ab_t {
    a_t a;
    b_t b;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
    mark_t mark;
    label_t[3] labels;
    ab_t u;
}

struct in_meta_t {
    tag_t peek;
}

struct eg_meta_t {
    bit<8> depth;
}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout in_meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x88b5: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        meta.peek = pkt.lookahead<tag_t>();
        pkt.extract(hdr.tag);
        pkt.advance(16);
        verify(hdr.tag.val != 12w0xfff, error.BadTag);
        transition select(hdr.tag.kind) {
            1: parse_label;
            2: parse_union;
            default: accept;
        }
    }
    state parse_label {
        pkt.extract(hdr.labels.next);
        transition select(hdr.labels.last.bos) {
            1: accept;
            default: parse_label;
        }
    }
    state parse_union {
        transition select(pkt.lookahead<bit<8>>()) {
            0xaa: parse_a;
            default: parse_b;
        }
    }
    state parse_a {
        pkt.extract(hdr.u.a);
        transition accept;
    }
    state parse_b {
        pkt.extract(hdr.u.b);
        transition accept;
    }
}

control In(inout headers_t hdr, inout in_meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        hdr.mark.setValid();
        hdr.mark.err = 0;
        if (istd.parser_error == error.BadTag) {
            hdr.mark.err = 1;
        } else if (istd.parser_error == error.StackOutOfBounds) {
            hdr.mark.err = 2;
        } else if (istd.parser_error == error.PacketTooShort) {
            hdr.mark.err = 3;
        }
        hdr.mark.depth = 0;
        hdr.mark.peek = meta.peek.isValid() ? meta.peek.val[7:0] : 8w0xff;
        hdr.mark.which = hdr.u.a.isValid() ? 8w1 : (hdr.u.b.isValid() ? 8w2 : 8w0);
        if (!hdr.tag.isValid()) {
            hdr.ethernet.ether_type = 0x88b6;
        }
        if (hdr.tag.kind == 1 && istd.parser_error == error.NoError) {
            hdr.labels.pop_front(1);
        }
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in in_meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.mark);
        pkt.emit(hdr.labels);
        pkt.emit(hdr.u);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout eg_meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        meta.depth = 0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x88b5: parse_tag;
            0x88b6: parse_mark;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition parse_tagged;
    }
    state parse_tagged {
        pkt.extract(hdr.mark);
        transition select(hdr.tag.kind) {
            1: parse_label;
            2: parse_union;
            default: accept;
        }
    }
    state parse_mark {
        pkt.extract(hdr.mark);
        transition accept;
    }
    state parse_label {
        pkt.extract(hdr.labels.next);
        meta.depth = meta.depth + 1;
        transition select(hdr.labels.last.bos) {
            1: accept;
            default: parse_label;
        }
    }
    state parse_union {
        transition select(pkt.lookahead<bit<8>>()) {
            0xaa: parse_a;
            default: parse_b;
        }
    }
    state parse_a {
        pkt.extract(hdr.u.a);
        transition accept;
    }
    state parse_b {
        pkt.extract(hdr.u.b);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout eg_meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (hdr.mark.isValid()) {
            hdr.mark.depth = meta.depth;
        }
        if (hdr.tag.kind == 1) {
            hdr.labels.push_front(1);
            hdr.labels[0].setValid();
            hdr.labels[0].label = 0x12345;
            hdr.labels[0].tc = 0;
            hdr.labels[0].bos = 0;
            hdr.labels[0].ttl = 64;
        }
        if (hdr.u.a.isValid()) {
            bit<8> x = hdr.u.a.x;
            hdr.u.b.setValid();
            hdr.u.b.z = 0xbbbb;
            hdr.u.b.w = (bit<16>) x;
        } else if (hdr.u.b.isValid()) {
            hdr.u.b.w = hdr.u.b.w + 1;
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in eg_meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.mark);
        pkt.emit(hdr.labels);
        pkt.emit(hdr.u);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
