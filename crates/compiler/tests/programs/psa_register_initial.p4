// PSA registers with initial values (a 16-bit and a 64-bit one) and one
// without: a cell reads as its initial value until written, and again
// after the control plane resets the register. The probe carries the
// index and the values to write in; out, it carries what each register
// held before this packet (`op` 1 writes, 0 only reads).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<8>  op;
    bit<8>  index;
    bit<16> small;
    bit<64> wide;
    bit<8>  plain;
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
    Register<bit<16>, bit<8>>(4, 0xbeef) small;
    Register<bit<64>, bit<8>>(4, 64w0x0123456789abcdef) wide;
    Register<bit<8>, bit<8>>(4) plain;
    apply {
        bit<16> small_was = small.read(hdr.probe.index);
        bit<64> wide_was = wide.read(hdr.probe.index);
        bit<8> plain_was = plain.read(hdr.probe.index);
        if (hdr.probe.op == 1) {
            small.write(hdr.probe.index, hdr.probe.small);
            wide.write(hdr.probe.index, hdr.probe.wide);
            plain.write(hdr.probe.index, hdr.probe.plain);
        }
        hdr.probe.small = small_was;
        hdr.probe.wide = wide_was;
        hdr.probe.plain = plain_was;
        send_to_port(ostd, (PortId_t) 2);
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
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
