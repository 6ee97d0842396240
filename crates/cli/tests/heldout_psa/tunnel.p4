// IP-in-IP tunnels: ingress pushes an outer IPv4 header onto a packet
// whose destination the encap table names (the parsed header is copied
// inward, a header assignment), and pops the outer header of a tunnelled
// packet addressed to us, sending a digest (a struct) of what it learned;
// the ingress parser verifies the outer checksum into an error of the
// program's own; the ingress deparser recomputes it; egress parses the
// result again and marks the source MAC with what it found.
#include <core.p4>
#include <psa.p4>

error { BadChecksum }

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
    ipv4_t outer;
    ipv4_t inner;
}

struct learned_t {
    bit<32> remote;
    bit<32> inner_src;
    PortId_t port;
}

struct meta_t {}
struct empty_t {}

parser Ipv4s(packet_in pkt, out headers_t hdr) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: outer;
            default: accept;
        }
    }
    state outer {
        pkt.extract(hdr.outer);
        transition select(hdr.outer.protocol) {
            4: inner;
            default: accept;
        }
    }
    state inner {
        pkt.extract(hdr.inner);
        transition accept;
    }
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    InternetChecksum() sum;
    Ipv4s() ipv4s;
    state start {
        ipv4s.apply(pkt, hdr);
        transition select(hdr.outer.isValid()) {
            true: check;
            false: accept;
        }
    }
    state check {
        sum.clear();
        sum.add({hdr.outer.version, hdr.outer.ihl, hdr.outer.tos,
                 hdr.outer.total_len, hdr.outer.id, hdr.outer.flags,
                 hdr.outer.frag, hdr.outer.ttl, hdr.outer.protocol,
                 hdr.outer.checksum, hdr.outer.src, hdr.outer.dst});
        verify(sum.get() == 0, error.BadChecksum);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Digest<learned_t>() learned;

    action encap(bit<32> remote, PortId_t port) {
        hdr.inner = hdr.outer;
        hdr.outer.tos = 0;
        hdr.outer.total_len = hdr.inner.total_len + 20;
        hdr.outer.id = 0;
        hdr.outer.flags = 2;
        hdr.outer.frag = 0;
        hdr.outer.ttl = 64;
        hdr.outer.protocol = 4;
        hdr.outer.src = 0x0a000001;
        hdr.outer.dst = remote;
        send_to_port(ostd, port);
    }
    table tunnels {
        key = { hdr.outer.dst : exact; }
        actions = { encap; NoAction; }
        default_action = NoAction;
    }

    apply {
        if (istd.parser_error == error.BadChecksum) {
            exit;
        }
        if (!hdr.outer.isValid()) {
            return;
        }
        if (hdr.inner.isValid() && hdr.outer.dst == 0x0a000001) {
            learned.pack({hdr.outer.src, hdr.inner.src, istd.ingress_port});
            hdr.outer = hdr.inner;
            hdr.inner.setInvalid();
            send_to_port(ostd, (PortId_t) 3);
        } else {
            tunnels.apply();
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    InternetChecksum() sum;
    apply {
        if (hdr.inner.isValid()) {
            sum.clear();
            sum.add({hdr.outer.version, hdr.outer.ihl, hdr.outer.tos,
                     hdr.outer.total_len, hdr.outer.id, hdr.outer.flags,
                     hdr.outer.frag, hdr.outer.ttl, hdr.outer.protocol,
                     hdr.outer.src, hdr.outer.dst});
            hdr.outer.checksum = sum.get();
        }
        pkt.emit(hdr);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    Ipv4s() ipv4s;
    state start {
        ipv4s.apply(pkt, hdr);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.ethernet.src[3:0] = hdr.inner.isValid() ? 4w2 : 4w1;
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
