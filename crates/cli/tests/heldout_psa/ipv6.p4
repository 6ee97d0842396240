// IPv6 with a chain of extension headers (hop-by-hop, routing,
// destination options) parsed into a header stack, each with varbit
// option data; TCP with options (varbit); the IP version read by
// lookahead; routing on the 128-bit destination (an exact key wider than
// 64 bits); the counts the parser made written into the source MAC.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv6_t {
    bit<4> version;
    bit<8> traffic_class;
    bit<20> flow_label;
    bit<16> payload_len;
    bit<8> next_hdr;
    bit<8> hop_limit;
    bit<128> src;
    bit<128> dst;
}

header ext_t {
    bit<8> next_hdr;
    bit<8> len;
    varbit<2032> data;
}

header tcp_t {
    bit<16> sport;
    bit<16> dport;
    bit<32> seq;
    bit<32> ack;
    bit<4> data_offset;
    bit<4> reserved;
    bit<8> flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent;
}

header tcp_options_t {
    varbit<320> data;
}

struct headers_t {
    ethernet_t ethernet;
    ipv6_t ipv6;
    ext_t[3] ext;
    tcp_t tcp;
    tcp_options_t options;
}

struct meta_t {
    bit<8> ext_count;
    bit<8> next_hdr;
}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        meta.ext_count = 0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type, pkt.lookahead<bit<4>>()) {
            (0x86dd, 6): parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        meta.next_hdr = hdr.ipv6.next_hdr;
        transition next_header;
    }
    state next_header {
        transition select(meta.next_hdr) {
            0: parse_ext;
            43: parse_ext;
            60: parse_ext;
            6: parse_tcp;
            default: accept;
        }
    }
    state parse_ext {
        bit<8> len = pkt.lookahead<bit<16>>()[7:0];
        pkt.extract(hdr.ext.next, ((bit<32>) len * 8 + 6) * 8);
        meta.ext_count = meta.ext_count + 1;
        meta.next_hdr = hdr.ext.last.next_hdr;
        transition next_header;
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        verify(hdr.tcp.data_offset >= 5, error.HeaderTooShort);
        pkt.extract(hdr.options, ((bit<32>) hdr.tcp.data_offset - 5) * 32);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action forward(PortId_t port, bit<48> mac) {
        send_to_port(ostd, port);
        hdr.ethernet.dst = mac;
        hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
    }
    table route {
        key = { hdr.ipv6.dst : exact; }
        actions = { forward; NoAction; }
        default_action = NoAction;
    }
    apply {
        if (istd.parser_error != error.NoError) {
            hdr.ethernet.src = 0xeeeeeeeeeeee;
            send_to_port(ostd, (PortId_t) 9);
            return;
        }
        if (!hdr.ipv6.isValid() || hdr.ipv6.hop_limit <= 1) {
            return;
        }
        route.apply();
        hdr.ethernet.src = (bit<48>) meta.ext_count << 8;
        if (hdr.tcp.isValid()) {
            hdr.ethernet.src = hdr.ethernet.src | (bit<48>) hdr.tcp.data_offset;
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
