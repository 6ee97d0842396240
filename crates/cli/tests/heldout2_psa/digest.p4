// Digests of a struct with odd widths and a nested struct (bit<3>,
// bit<48>, a struct of bit<5>, a bool and bit<11>, a bit<13> read from
// the IPv4 header, the ingress port), packed in the ingress deparser only
// on some paths: a source the table knows sends none, a locally
// administered source sends none, and a frame ingress drops still sends
// its digest (PSA 1.2: the deparser runs whatever the packet's fate).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4> version;
    bit<4> ihl;
    bit<8> tos;
    bit<16> total_len;
    bit<16> id;
    bit<3> flags;
    bit<13> frag;
    bit<8> ttl;
    bit<8> protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t ipv4;
}

struct where_t {
    bit<5> zone;
    bool uplink;
    bit<11> vlan;
}

struct learn_t {
    bit<3> kind;
    bit<48> mac;
    where_t where;
    bit<13> frag;
    PortId_t port;
}

struct meta_t {
    bool send;
    learn_t learn;
}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action known() {
        meta.send = false;
    }
    action unknown() {
        meta.send = hdr.ethernet.src[41:41] == 0;
    }
    table sources {
        key = { hdr.ethernet.src: exact; }
        actions = { known; unknown; }
        default_action = unknown();
    }
    apply {
        sources.apply();
        meta.learn.mac = hdr.ethernet.src;
        meta.learn.port = istd.ingress_port;
        meta.learn.where.zone = (bit<5>) ((bit<32>) istd.ingress_port);
        meta.learn.where.uplink = istd.ingress_port == (PortId_t) 3;
        meta.learn.where.vlan = hdr.ethernet.ether_type[10:0];
        if (hdr.ipv4.isValid()) {
            meta.learn.kind = 1;
            meta.learn.frag = hdr.ipv4.frag;
        } else {
            meta.learn.kind = 5;
            meta.learn.frag = 0x1fff;
        }
        if (hdr.ethernet.dst == 0) {
            ingress_drop(ostd);
        } else {
            send_to_port(ostd, (PortId_t) 2);
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    Digest<learn_t>() learn;
    apply {
        if (meta.send) {
            learn.pack(meta.learn);
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
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
