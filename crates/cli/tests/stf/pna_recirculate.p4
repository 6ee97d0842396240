// PNA's recirculate(): the packet the main deparser wrote runs the
// pipeline again with `pass` one more and `loopedback` true; it is a
// forwarding function, so the last of drop_packet/send_to_port/
// recirculate wins; past the bound on passes the packet is dropped.
#include <core.p4>
#include <pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t {
}

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        // What the parser saw of the pass, kept in the packet's bytes.
        hdr.ethernet.src[31:24] = (bit<8>)(PassNumberUint_t)istd.pass;
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
    apply {
        bit<8> passes_wanted = hdr.ethernet.dst[7:0];
        bit<8> op = hdr.ethernet.dst[15:8];
        // One more run, counted in the packet: a recirculated packet is
        // the one the deparser wrote.
        hdr.ethernet.src[7:0] = hdr.ethernet.src[7:0] + 1;
        hdr.ethernet.src[15:8] = istd.loopedback ? 8w1 : 8w0;
        if ((bit<8>)(PassNumberUint_t)istd.pass < passes_wanted) {
            if (op == 1) {
                recirculate();
                drop_packet();
            } else if (op == 2) {
                drop_packet();
                recirculate();
            } else {
                send_to_port((PortId_t)9);
                recirculate();
            }
        } else {
            send_to_port((PortId_t)(bit<32>)op);
        }
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
