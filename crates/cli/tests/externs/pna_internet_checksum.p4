// PNA's InternetChecksum: the main control rewrites the IPv4 source
// address and updates the checksum incrementally over the two 16-bit
// halves of the address, state carried through get_state/set_state;
// then checks the result from scratch and marks the TOS byte when it
// does not verify. (pna.p4: P4TC computes checksums in parsers and the
// deparser only.)
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<16> identification;
    bit<16> flags_frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t ipv4;
}

struct meta_t {
    bit<16> state;
}

parser Parser(packet_in pkt, out headers_t hdr, inout meta_t meta,
              in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control Pre(in headers_t hdr, inout meta_t meta,
            in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control Main(inout headers_t hdr, inout meta_t meta,
             in pna_main_input_metadata_t istd,
             inout pna_main_output_metadata_t ostd) {
    InternetChecksum() first;
    InternetChecksum() second;
    InternetChecksum() check;
    action nat(bit<32> src) {
        first.subtract(hdr.ipv4.checksum);
        first.subtract(hdr.ipv4.src_addr[31:16]);
        first.add(src[31:16]);
        // The rest of the sum goes on in another instance.
        second.set_state(first.get_state());
        second.subtract(hdr.ipv4.src_addr[15:0]);
        second.add(src[15:0]);
        hdr.ipv4.checksum = second.get();
        hdr.ipv4.src_addr = src;
    }
    table snat {
        key = { hdr.ipv4.src_addr: exact; }
        actions = { nat; NoAction; }
        default_action = NoAction;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            snat.apply();
            check.add(hdr.ipv4);
            if (check.get() != 0) {
                hdr.ipv4.tos = 0xee;
            }
        }
        send_to_port(istd.input_port);
    }
}

control Deparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                 in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

PNA_NIC(Parser(), Pre(), Main(), Deparser()) main;
