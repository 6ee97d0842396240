// Header stacks: 802.1Q/802.1ad tags (two deep) and an MPLS label stack
// (four deep, parsed until bottom of stack). Ingress pops the top label
// (its TTL, less one, goes to the next), pushes an outer S-tag on a
// single-tagged frame and pops the outer tag of a double-tagged one;
// egress parses the result again and writes, in the source MAC's last
// byte, how many tags (high nibble) and labels (low nibble) it found.
// An overlong stack is a parser error: ingress drops the packet. A frame
// to 0xee has the label its source MAC's low bits name (a run-time
// index) take 0x10 more TTL and goes to port 3 unchanged otherwise
// (egress still writes its count).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header vlan_t {
    bit<3> pcp;
    bit<1> dei;
    bit<12> vid;
    bit<16> ether_type;
}

header mpls_t {
    bit<20> label;
    bit<3> tc;
    bit<1> bos;
    bit<8> ttl;
}

struct headers_t {
    ethernet_t ethernet;
    vlan_t[2] vlan;
    mpls_t[4] mpls;
}

struct meta_t {}
struct empty_t {}

parser Tags(packet_in pkt, out headers_t hdr) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x8100 &&& 0xefff: parse_vlan;
            0x88a8: parse_vlan;
            0x8847: parse_mpls;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan.next);
        transition select(hdr.vlan.last.ether_type) {
            0x8100: parse_vlan;
            0x8847: parse_mpls;
            default: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: accept;
        }
    }
}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    Tags() tags;
    state start {
        tags.apply(pkt, hdr);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (istd.parser_error != error.NoError) {
            ingress_drop(ostd);
            exit;
        }
        if (hdr.ethernet.dst == 0xee) {
            bit<2> i = hdr.ethernet.src[1:0];
            hdr.mpls[i].ttl = hdr.mpls[i].ttl + 0x10;
            send_to_port(ostd, (PortId_t) 3);
            exit;
        }
        if (hdr.mpls[0].isValid()) {
            bit<8> ttl = hdr.mpls[0].ttl - 1;
            hdr.mpls.pop_front(1);
            if (hdr.mpls[0].isValid()) {
                hdr.mpls[0].ttl = ttl;
            } else {
                hdr.ethernet.ether_type = 0x0800;
            }
        }
        if (hdr.vlan[0].isValid() && !hdr.vlan[1].isValid()) {
            hdr.vlan.push_front(1);
            hdr.vlan[0].setValid();
            hdr.vlan[0].pcp = 0;
            hdr.vlan[0].dei = 0;
            hdr.vlan[0].vid = 100;
            hdr.vlan[0].ether_type = hdr.ethernet.ether_type;
            hdr.ethernet.ether_type = 0x88a8;
        } else if (hdr.vlan[1].isValid()) {
            hdr.ethernet.ether_type = hdr.vlan[0].ether_type;
            hdr.vlan.pop_front(1);
        }
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.mpls);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    Tags() tags;
    state start {
        tags.apply(pkt, hdr);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        bit<8> found = 0;
        if (hdr.vlan[0].isValid()) { found = found + 0x10; }
        if (hdr.vlan[1].isValid()) { found = found + 0x10; }
        if (hdr.mpls[0].isValid()) { found = found + 1; }
        if (hdr.mpls[1].isValid()) { found = found + 1; }
        if (hdr.mpls[2].isValid()) { found = found + 1; }
        if (hdr.mpls[3].isValid()) { found = found + 1; }
        hdr.ethernet.src[7:0] = found;
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.mpls);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
