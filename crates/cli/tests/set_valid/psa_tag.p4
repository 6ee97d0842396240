// setValid() on an invalid header: its fields start at zero. A frame of
// type 0x1234 carries a tag, which the parser extracts and the packet
// counts one up; any other frame gets a tag made valid and left unassigned. The
// per-CPU state the tag lives in holds the tag of the frame before, so
// without zeroing the second frame would leave with that tag.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header tag_t {
    bit<32> value;
    bit<8> kind;
}

// Never valid: it makes the state too big for the stack, so the state
// lives in the per-CPU map that one packet leaves to the next.
header pad_t {
    bit<1024> a;
    bit<1024> b;
    bit<1024> c;
}

struct headers_t {
    ethernet_t ethernet;
    tag_t tag;
    pad_t pad;
}

struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout empty_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x1234: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control In(inout headers_t hdr, inout empty_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (hdr.tag.isValid()) {
            // Read and written: the tag's fields are in the state now.
            hdr.tag.value = hdr.tag.value + 1;
            hdr.tag.kind = hdr.tag.kind + 1;
        } else {
            hdr.tag.setValid();
            hdr.ethernet.ether_type = 0x1234;
        }
        // A second setValid() on a valid header keeps its fields.
        hdr.tag.setValid();
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in empty_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.pad);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout empty_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout empty_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in empty_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
