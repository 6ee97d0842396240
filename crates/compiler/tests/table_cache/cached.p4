// The C of --table-caching: a ternary (with a range field), an lpm, an
// action selector and an action profile table behind their caches, and
// an exact table without.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct empty_t {}
struct metadata {}
struct headers { ethernet_t ethernet; }

parser IngressParserImpl(packet_in buffer, out headers hdr, inout metadata meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { buffer.extract(hdr.ethernet); transition accept; }
}

parser EgressParserImpl(packet_in buffer, out headers hdr, inout metadata meta,
                        in psa_egress_parser_input_metadata_t istd, in empty_t normal_meta,
                        in empty_t clone_i2e_meta, in empty_t clone_e2e_meta) {
    state start { buffer.extract(hdr.ethernet); transition accept; }
}

control ingress(inout headers hdr, inout metadata meta,
                in psa_ingress_input_metadata_t istd,
                inout psa_ingress_output_metadata_t ostd) {
    ActionSelector(PSA_HashAlgorithm_t.CRC32, 32w64, 32w8) members;
    ActionProfile(32w64) shared;
    action rewrite(bit<48> dst) { hdr.ethernet.dstAddr = dst; }
    action fwd(PortId_t port) { send_to_port(ostd, port); }
    action drop_it() { ingress_drop(ostd); }
    // Cached: ternary.
    table acl {
        key = {
            hdr.ethernet.dstAddr : ternary;
            hdr.ethernet.etherType : range;
        }
        actions = { NoAction; rewrite; }
        size = 64;
    }
    // Cached: lpm, a const default (a miss keeps no default).
    table routes {
        key = { hdr.ethernet.dstAddr : lpm; }
        actions = { fwd; drop_it; }
        const default_action = drop_it();
    }
    // Cached: an exact key with an action selector, which also hashes.
    table by_source {
        key = {
            hdr.ethernet.srcAddr : exact;
            hdr.ethernet.dstAddr : selector;
            hdr.ethernet.etherType : selector;
        }
        actions = { NoAction; fwd; }
        psa_implementation = members;
        psa_empty_group_action = fwd(4);
    }
    // Cached: ternary with an action profile, whose member is read at
    // each packet (no selector: nothing to hash).
    table profiled {
        key = { hdr.ethernet.srcAddr : ternary; }
        actions = { NoAction; fwd; }
        psa_implementation = shared;
    }
    // Not cached: one exact probe is all its search costs.
    table plain {
        key = { hdr.ethernet.etherType : exact; }
        actions = { NoAction; fwd; }
    }
    apply {
        acl.apply();
        routes.apply();
        by_source.apply();
        profiled.apply();
        plain.apply();
    }
}

control egress(inout headers hdr, inout metadata meta,
               in psa_egress_input_metadata_t istd,
               inout psa_egress_output_metadata_t ostd) {
    apply {}
}

control IngressDeparserImpl(packet_out buffer, out empty_t clone_i2e_meta,
                            out empty_t resubmit_meta, out empty_t normal_meta,
                            inout headers hdr, in metadata meta,
                            in psa_ingress_output_metadata_t istd) {
    apply { buffer.emit(hdr.ethernet); }
}

control EgressDeparserImpl(packet_out buffer, out empty_t clone_e2e_meta,
                           out empty_t recirculate_meta, inout headers hdr,
                           in metadata meta, in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd) {
    apply { buffer.emit(hdr.ethernet); }
}

IngressPipeline(IngressParserImpl(), ingress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), egress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
