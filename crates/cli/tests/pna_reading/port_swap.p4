// P4TC's three-block PNA_NIC: a table keyed on the input port picks the
// output port, an lpm table on the source address the EtherType. Its script (port_swap.stf) is written for P4TC's harness,
// which runs the program on port 0 alone.
#include <core.p4>
#include <tc/pna.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t { ethernet_t ethernet; }
struct meta_t { }

parser SwapParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control SwapControl(inout headers_t hdr, inout meta_t meta,
                    in pna_main_input_metadata_t istd,
                    inout pna_main_output_metadata_t ostd) {
    action forward(@tc_type("dev") PortId_t port, @tc_type("macaddr") bit<48> dmac) {
        hdr.ethernet.dstAddr = dmac;
        send_to_port(port);
    }
    action drop() { drop_packet(); }
    table ports {
        key = { istd.input_port : exact @tc_type("dev") @name("port"); }
        actions = { forward; drop; }
        default_action = drop;
    }
    action mark(bit<16> etype) { hdr.ethernet.etherType = etype; }
    table sources {
        key = { hdr.ethernet.srcAddr : lpm @name("src"); }
        actions = { mark; NoAction; }
        default_action = NoAction;
    }
    apply {
        ports.apply();
        sources.apply();
    }
}

control SwapDeparser(packet_out pkt, inout headers_t hdr, in meta_t meta,
                     in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); }
}

PNA_NIC(SwapParser(), SwapControl(), SwapDeparser()) main;
