// InternetChecksum across the pipeline: ingress removes a header the UDP
// checksum covers and adds another (subtract the old, add the new,
// without reading the payload), carries the partial sum (get_state) to
// egress in bridged metadata of odd widths; egress's parser reads that
// metadata to choose what to parse, egress rewrites the IPv4 destination
// and finishes the UDP checksum from the carried state (set_state), and
// the egress deparser recomputes the IPv4 checksum after egress changed
// the TTL and the address.
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

header udp_t {
    bit<16> sport;
    bit<16> dport;
    bit<16> length;
    bit<16> checksum;
}

// The shim a packet arrives with and the tag it leaves with: the same
// size, so the UDP and IP lengths stay.
header shim_t {
    bit<16> kind;
    bit<16> value;
}

header tag_t {
    bit<16> kind;
    bit<8> port;
    bit<8> value;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t ipv4;
    udp_t udp;
    shim_t shim;
    tag_t tag;
}

struct bridged_t {
    bit<5> flags;
    bit<16> udp_state;
    bool retagged;
    bit<3> spare;
}

struct empty_t {}

const bit<16> SHIM_PORT = 0x1234;

parser InParser(packet_in pkt, out headers_t hdr, inout bridged_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dport) {
            SHIM_PORT: parse_shim;
            default: accept;
        }
    }
    state parse_shim {
        pkt.extract(hdr.shim);
        transition accept;
    }
}

control In(inout headers_t hdr, inout bridged_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    InternetChecksum() udp_sum;
    apply {
        meta.flags = 0x15;
        meta.spare = 0b101;
        meta.retagged = false;
        if (hdr.shim.isValid()) {
            udp_sum.subtract(hdr.udp.checksum);
            udp_sum.subtract({hdr.shim.kind, hdr.shim.value});
            hdr.tag.setValid();
            hdr.tag.kind = 0x5447;
            hdr.tag.port = (bit<8>) ((bit<32>) istd.ingress_port);
            hdr.tag.value = hdr.shim.value[7:0];
            hdr.shim.setInvalid();
            udp_sum.add({hdr.tag.kind, hdr.tag.port, hdr.tag.value});
            meta.udp_state = udp_sum.get_state();
            meta.retagged = true;
        }
        send_to_port(ostd, (PortId_t) 4);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out bridged_t normal_meta,
                   inout headers_t hdr, in bridged_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        normal_meta = meta;
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.shim);
        pkt.emit(hdr.tag);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout bridged_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in bridged_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        meta = normal_meta;
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        transition select(normal_meta.retagged, normal_meta.flags) {
            (true, 0x15): parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout bridged_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    InternetChecksum() udp_sum;
    apply {
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        if (hdr.tag.isValid() && meta.spare == 0b101) {
            udp_sum.set_state(meta.udp_state);
            udp_sum.subtract(hdr.ipv4.dst);
            hdr.ipv4.dst = 0x0a000063;
            udp_sum.add(hdr.ipv4.dst);
            hdr.udp.checksum = udp_sum.get();
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in bridged_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    InternetChecksum() ip_sum;
    apply {
        ip_sum.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos,
                    hdr.ipv4.total_len, hdr.ipv4.id, hdr.ipv4.flags,
                    hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.protocol,
                    hdr.ipv4.src, hdr.ipv4.dst});
        hdr.ipv4.checksum = ip_sum.get();
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.tag);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
