// An action profile shared by two tables, and an action selector whose
// group members are picked by a CRC16 hash of two selector keys, with an
// action for empty groups.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

struct headers_t { ethernet_t eth; }
struct empty_t { }

parser IP(packet_in pkt, out headers_t hdr, inout empty_t meta,
          in psa_ingress_parser_input_metadata_t istd, in empty_t r, in empty_t c) {
    state start {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control Ig(inout headers_t hdr, inout empty_t meta,
                in psa_ingress_input_metadata_t istd,
                inout psa_ingress_output_metadata_t ostd) {
    ActionProfile(128) rewrites;
    ActionSelector(PSA_HashAlgorithm_t.CRC16, 32w256, 32w16) uplinks;

    action set_type(bit<16> type) { hdr.eth.type = type; }
    action set_dst(bit<48> dst) { hdr.eth.dst = dst; }
    action forward(PortId_t port) { send_to_port(ostd, port); }

    table by_src {
        key = { hdr.eth.src : exact; }
        actions = { set_type; NoAction; }
        psa_implementation = rewrites;
    }
    table by_type {
        key = { hdr.eth.type : exact; }
        actions = { set_dst; set_type; NoAction; }
        psa_implementation = rewrites;
    }
    table uplink {
        key = {
            hdr.eth.dst  : lpm;
            hdr.eth.src  : selector;
            hdr.eth.type : selector;
        }
        actions = { forward; NoAction; }
        psa_implementation = uplinks;
        psa_empty_group_action = forward((PortId_t) 9);
    }

    apply {
        by_src.apply();
        by_type.apply();
        uplink.apply();
    }
}

parser EP(packet_in pkt, out empty_t hdr, inout empty_t meta,
          in psa_egress_parser_input_metadata_t istd, in empty_t n, in empty_t i, in empty_t e) {
    state start { transition accept; }
}

control Eg(inout empty_t hdr, inout empty_t meta,
               in psa_egress_input_metadata_t istd, inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control ID(packet_out pkt, out empty_t c, out empty_t r, out empty_t n,
           inout headers_t hdr, in empty_t meta, in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.eth); }
}

control ED(packet_out pkt, out empty_t c, out empty_t r, inout empty_t hdr, in empty_t meta,
           in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t e) {
    apply { }
}

IngressPipeline(IP(), Ig(), ID()) ip;
EgressPipeline(EP(), Eg(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
