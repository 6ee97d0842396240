// Empty group actions three ways (PSA 1.2 section 7.12), the three
// tables sharing one selector: `by_src`'s psa_empty_group_action may be
// changed by the control plane, `by_tag`'s is const, and `by_type` has
// no property, so its empty group action is NoAction until the control
// plane sets one. Actions have odd-width and 48-bit parameters, `tag` is
// in `by_tag`'s list only and `by_type` matches a ternary key.
#include <core.p4>
#include <psa.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header mark_t {
    bit<12> label;
    bit<4>  color;
}

struct headers_t {
    eth_t  eth;
    mark_t mark;
}

struct empty_t { }

parser IP(packet_in pkt, out headers_t hdr, inout empty_t meta,
          in psa_ingress_parser_input_metadata_t istd, in empty_t r, in empty_t c) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.mark);
        transition accept;
    }
}

control Ig(inout headers_t hdr, inout empty_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    ActionSelector(PSA_HashAlgorithm_t.CRC32, 32w64, 32w16) shared;

    action fwd(PortId_t port) {
        send_to_port(ostd, port);
    }
    action mark(PortId_t port, bit<12> label, bit<4> color) {
        hdr.mark.label = label;
        hdr.mark.color = color;
        send_to_port(ostd, port);
    }
    action rewrite(bit<48> dst) {
        hdr.eth.dst = dst;
        send_to_port(ostd, (PortId_t) 8);
    }
    action tag(bit<4> color) {
        hdr.mark.color = color;
        send_to_port(ostd, (PortId_t) 7);
    }

    table by_src {
        key = {
            hdr.eth.src : exact;
            hdr.eth.dst : selector;
        }
        actions = { fwd; mark; NoAction; }
        psa_implementation = shared;
        psa_empty_group_action = fwd((PortId_t) 1);
    }
    table by_tag {
        key = {
            hdr.mark.label : exact;
            hdr.eth.dst    : selector;
        }
        actions = { fwd; tag; NoAction; }
        psa_implementation = shared;
        const psa_empty_group_action = tag(4w3);
    }
    table by_type {
        key = {
            hdr.eth.type : ternary;
            hdr.mark.color : selector;
        }
        actions = { fwd; mark; rewrite; NoAction; }
        psa_implementation = shared;
    }

    apply {
        ostd.drop = true;
        if (hdr.eth.type == 0x1234) {
            by_src.apply();
        } else if (hdr.eth.type == 0x1235) {
            by_tag.apply();
        } else {
            by_type.apply();
        }
    }
}

parser EP(packet_in pkt, out empty_t hdr, inout empty_t meta,
          in psa_egress_parser_input_metadata_t istd, in empty_t n, in empty_t i, in empty_t e) {
    state start { transition accept; }
}

control Eg(inout empty_t hdr, inout empty_t meta,
           in psa_egress_input_metadata_t istd, inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control ID(packet_out pkt, out empty_t c, out empty_t r, out empty_t n,
           inout headers_t hdr, in empty_t meta, in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr); }
}

control ED(packet_out pkt, out empty_t c, out empty_t r, inout empty_t hdr, in empty_t meta,
           in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

IngressPipeline(IP(), Ig(), ID()) ip;
EgressPipeline(EP(), Eg(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
