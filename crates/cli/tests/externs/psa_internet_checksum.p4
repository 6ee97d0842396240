// PSA's InternetChecksum in every block that may hold one. The parser
// verifies an IPv4 header's checksum (ingress drops a bad one); the
// ingress decrements the TTL with an incremental update (RFC 1624) in a
// function the instance is passed to; the deparser recomputes the whole
// checksum after ingress rewrote the destination. A probe header drives
// each method over words, an odd-width bit-list, a lone byte and a 48-bit
// field, and shows the state.
#include <core.p4>
#include <psa.p4>

error { BadChecksum }

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header probe_t {
    bit<8>  op;
    bit<8>  pad;
    bit<16> hc;
    bit<16> m;
    bit<16> m_new;
    bit<16> state;
    bit<4>  a;
    bit<4>  b;
    bit<8>  c;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t ipv4;
    probe_t probe;
}

struct meta_t {
    bool rewritten;
}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    InternetChecksum() ck;
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            0x88b5: parse_probe;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        ck.clear();
        ck.add({ hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
                 hdr.ipv4.total_len, hdr.ipv4.identification,
                 hdr.ipv4.flags, hdr.ipv4.frag_offset,
                 hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.checksum,
                 hdr.ipv4.src_addr, hdr.ipv4.dst_addr });
        verify(ck.get() == 0, error.BadChecksum);
        transition accept;
    }
    state parse_probe {
        pkt.extract(hdr.probe);
        transition accept;
    }
}

void ttl_dec(InternetChecksum sum, inout ipv4_t ip) {
    sum.set_state(~ip.checksum);
    sum.subtract({ ip.ttl, ip.protocol });
    ip.ttl = ip.ttl - 1;
    sum.add({ ip.ttl, ip.protocol });
    ip.checksum = sum.get();
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    InternetChecksum() ck;
    apply {
        send_to_port(ostd, (PortId_t) 2);
        // A parser error does not drop in PSA: ingress decides.
        if (istd.parser_error != error.NoError) {
            ingress_drop(ostd);
            return;
        }
        meta.rewritten = false;
        if (hdr.ipv4.isValid()) {
            ttl_dec(ck, hdr.ipv4);
            if (hdr.ipv4.dst_addr == 0x0a000063) {
                hdr.ipv4.dst_addr = 0x0a000001;
                meta.rewritten = true;
            }
        }
        if (hdr.probe.op == 1) {
            // RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m').
            ck.clear();
            ck.subtract(hdr.probe.hc);
            ck.subtract(hdr.probe.m);
            ck.add(hdr.probe.m_new);
            hdr.probe.hc = ck.get();
            hdr.probe.state = ck.get_state();
            hdr.probe.m = hdr.probe.m_new;
        } else if (hdr.probe.op == 2) {
            ck.set_state(hdr.probe.state);
            ck.add({ hdr.probe.a, hdr.probe.b, hdr.probe.c });
            ck.add(hdr.probe.m);
            hdr.probe.hc = ck.get();
            hdr.probe.state = ck.get_state();
        } else if (hdr.probe.op == 3) {
            ck.add({ hdr.probe.c });
            hdr.probe.hc = ck.get();
        } else if (hdr.probe.op == 4) {
            ck.add(hdr.ethernet.src);
            ck.get();
            hdr.probe.hc = ck.get();
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    InternetChecksum() ck;
    apply {
        if (meta.rewritten) {
            ck.clear();
            ck.add({ hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
                     hdr.ipv4.total_len, hdr.ipv4.identification,
                     hdr.ipv4.flags, hdr.ipv4.frag_offset,
                     hdr.ipv4.ttl, hdr.ipv4.protocol,
                     hdr.ipv4.src_addr, hdr.ipv4.dst_addr });
            hdr.ipv4.checksum = ck.get();
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.probe);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        transition accept;
    }
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
