// PSA recirculation: ingress sends a packet to PSA_PORT_RECIRCULATE until
// the pass count, carried in the recirculate metadata the egress
// deparser writes, reaches the packet's `want`; each egress pass pushes
// a hop header, so the packet that comes back is the one egress wrote.
// The last pass sends it to port 2, its source MAC the port it came in
// on. A want of ff recirculates forever and is dropped at the bound.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header count_t {
    bit<8> want;
    bit<8> passes;
}

header hop_t {
    bit<8> pass;
}

struct headers_t {
    ethernet_t ethernet;
    count_t count;
    hop_t hop;
}

struct recirculate_t {
    bit<8> passes;
}

struct meta_t {
    bit<8> passes;
}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in recirculate_t recirculate_meta) {
    state start {
        meta.passes = 0;
        transition select(istd.packet_path) {
            PSA_PacketPath_t.RECIRCULATE: recirculated;
            default: parse;
        }
    }
    state recirculated {
        meta.passes = recirculate_meta.passes;
        transition parse;
    }
    state parse {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.count);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        hdr.count.passes = meta.passes;
        if (hdr.count.want == 0xff || meta.passes < hdr.count.want) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else {
            send_to_port(ostd, (PortId_t) 2);
            // The port this pass came in on: a recirculated one, on
            // PSA_PORT_RECIRCULATE.
            hdr.ethernet.src = (bit<48>) (bit<32>) istd.ingress_port;
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.count);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.count);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.egress_port == PSA_PORT_RECIRCULATE) {
            hdr.hop.setValid();
            hdr.hop.pass = hdr.count.passes;
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out recirculate_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_recirculate(istd, edstd)) {
            recirculate_meta.passes = hdr.count.passes + 1;
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.count);
        pkt.emit(hdr.hop);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
