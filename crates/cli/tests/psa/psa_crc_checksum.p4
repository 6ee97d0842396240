// PSA's Checksum<W>(CRC16 | CRC32), accumulated over several updates: in
// the ingress control (directly and from an action), the ingress
// deparser and the egress control. A probe header's `op` picks the
// sequence; the results land in `crc32` and `crc16`. Each block starts
// its instances empty (get() of no data is 0), packet after packet.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8>  op;
    bit<4>  a;
    bit<4>  b;
    bit<24> t;
    bit<32> w;
    bit<16> h;
    bit<32> crc32;
    bit<16> crc16;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Checksum<bit<32>>(PSA_HashAlgorithm_t.CRC32) c32;
    Checksum<bit<16>>(PSA_HashAlgorithm_t.CRC16) c16;

    action fold_w() {
        c32.update(hdr.probe.w);
    }
    apply {
        send_to_port(ostd, (PortId_t) 2);
        if (hdr.probe.op == 1) {
            // Two updates continue one CRC: the same as one over both.
            c32.update(hdr.probe.w);
            c32.update(hdr.probe.h);
            c16.update({ hdr.probe.w, hdr.probe.h });
        } else if (hdr.probe.op == 2) {
            // clear() forgets what came before.
            c32.update(hdr.probe.w);
            c32.clear();
            c32.update({ hdr.probe.a, hdr.probe.b, hdr.probe.t });
            c16.update(hdr.probe.h);
            c16.clear();
        } else if (hdr.probe.op == 4) {
            // A field narrower than a byte is one byte, its bits first.
            c16.update(hdr.probe.a);
            c16.update(hdr.probe.b);
            c16.update(hdr.probe.t);
            fold_w();
            fold_w();
        }
        if (hdr.probe.op < 5) {
            hdr.probe.crc32 = c32.get();
            hdr.probe.crc16 = c16.get();
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    Checksum<bit<16>>(PSA_HashAlgorithm_t.CRC16) d;
    apply {
        if (hdr.probe.op == 5) {
            d.update(hdr.ethernet.dst);
            hdr.probe.crc16 = d.get();
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    Checksum<bit<32>>(PSA_HashAlgorithm_t.CRC32) e32;
    apply {
        if (hdr.probe.op == 6) {
            e32.update(hdr.probe.t);
            hdr.probe.crc32 = e32.get();
        }
    }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
