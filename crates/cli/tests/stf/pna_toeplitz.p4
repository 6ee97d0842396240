// PNA's Hash with TOEPLITZ: the receive-side scaling hash with the
// Microsoft RSS key, checked against Microsoft's verification values.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

// The fields RSS hashes, then room for the two hashes.
header flow_t {
    bit<32> src_addr;
    bit<32> dst_addr;
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> addresses_hash;
    bit<32> ports_hash;
}

struct headers_t {
    ethernet_t ethernet;
    flow_t flow;
}

struct meta_t {
}

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.flow);
        transition accept;
    }
}

control PreControl(in headers_t hdr, inout meta_t meta,
                   in pna_pre_input_metadata_t istd,
                   inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControl(inout headers_t hdr, inout meta_t meta,
                    in pna_main_input_metadata_t istd,
                    inout pna_main_output_metadata_t ostd) {
    Hash<bit<32>>(PNA_HashAlgorithm_t.TOEPLITZ) rss;
    apply {
        hdr.flow.addresses_hash = rss.get_hash({hdr.flow.src_addr, hdr.flow.dst_addr});
        hdr.flow.ports_hash = rss.get_hash({hdr.flow.src_addr, hdr.flow.dst_addr,
                                            hdr.flow.src_port, hdr.flow.dst_port});
        send_to_port((PortId_t)1);
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.flow);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
