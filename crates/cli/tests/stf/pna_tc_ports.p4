// P4TC's three-block PNA_NIC: is_net_port/is_host_port and the boolean
// SelectByDirection; every port but PNA_PORT_CPU is a network port.
#include <core.p4>
#include <tc/pna.p4>

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

parser Parser(packet_in pkt, out headers_t hdr, inout meta_t meta,
              in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control Main(inout headers_t hdr, inout meta_t meta,
             in pna_main_input_metadata_t istd,
             inout pna_main_output_metadata_t ostd) {
    apply {
        bool net = is_net_port(istd.input_port);
        hdr.ethernet.etherType = SelectByDirection(net, 16w0x1111, 16w0x2222);
        PortId_t cpu = (PortId_t)(InterfaceIdUint_t)PNA_PORT_CPU;
        if (is_host_port(cpu) && !is_net_port(cpu) && !is_host_port(istd.input_port)) {
            send_to_port((PortId_t)((bit<32>)istd.input_port + 1));
        }
    }
}

control Deparser(packet_out pkt, inout headers_t hdr, in meta_t meta,
                 in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

PNA_NIC(Parser(), Main(), Deparser()) main;
