// PNA_NIC's four blocks and its forwarding functions: the pre-control
// runs before the main control; the last of drop_packet/send_to_port
// wins; a packet neither sends is dropped; PNA_PORT_CPU is the host.
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
    bit<8> seen_by_pre;
}

parser MainParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control PreControl(in headers_t hdr, inout meta_t meta,
                   in pna_pre_input_metadata_t istd,
                   inout pna_pre_output_metadata_t ostd) {
    apply {
        meta.seen_by_pre = hdr.ethernet.dst[15:8];
    }
}

control MainControl(inout headers_t hdr, inout meta_t meta,
                    in pna_main_input_metadata_t istd,
                    inout pna_main_output_metadata_t ostd) {
    apply {
        // Every packet arrives from the network at p4bpf's hooks.
        hdr.ethernet.etherType = SelectByDirection(istd.direction, 16w0xaaaa, 16w0xbbbb);
        hdr.ethernet.src[7:0] = meta.seen_by_pre;
        bit<8> op = hdr.ethernet.dst[7:0];
        if (op == 1) {
            send_to_port((PortId_t)(bit<32>)hdr.ethernet.src[15:8]);
        } else if (op == 2) {
            drop_packet();
        } else if (op == 4) {
            send_to_port((PortId_t)3);
            drop_packet();
            send_to_port((PortId_t)5);
        } else if (op == 5) {
            send_to_port((PortId_t)(InterfaceIdUint_t)PNA_PORT_CPU);
        } else if (op == 6) {
            send_to_port((PortId_t)2);
            drop_packet();
        } else if (op == 7) {
            send_to_port(istd.input_port);
        }
        // op 3 (and any other): neither is called.
    }
}

control MainDeparser(packet_out pkt, in headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

PNA_NIC(MainParser(), PreControl(), MainControl(), MainDeparser()) main;
