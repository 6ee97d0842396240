// Connection tracking with PNA add-on-miss (P4TC flavour): the first
// packet of a UDP or TCP flow misses `flows`, whose default action
// `learn` inserts the flow with `allow`; the flow's next packets hit it.
// With -D AGING the entries have idle timers (profile 1, whose timeout
// the bench leaves at 0: never), to measure what the timers cost.
// Measured by `cargo run --release -p p4bpf --example pna_conntrack`.
#include <core.p4>
#include <tc/pna.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<16> flags_frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header ports_t {
    bit<16> srcPort;
    bit<16> dstPort;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    ports_t    ports;
}

struct meta_t {
}

parser Parser(packet_in pkt, out headers_t hdr, inout meta_t meta,
              in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            6: ports;
            17: ports;
            default: accept;
        }
    }
    state ports {
        pkt.extract(hdr.ports);
        transition accept;
    }
}

control Main(inout headers_t hdr, inout meta_t meta,
             in pna_main_input_metadata_t istd,
             inout pna_main_output_metadata_t ostd) {
    action allow(PortId_t port) {
        send_to_port(port);
    }
    action learn() {
        add_entry("allow", { (PortId_t)1 }, (ExpireTimeProfileId_t)1);
        send_to_port((PortId_t)1);
    }
    table flows {
        key = {
            hdr.ipv4.srcAddr  : exact;
            hdr.ipv4.dstAddr  : exact;
            hdr.ipv4.protocol : exact;
            hdr.ports.srcPort : exact;
            hdr.ports.dstPort : exact;
        }
        actions = { allow; learn; }
        default_action = learn;
        add_on_miss = true;
#ifdef AGING
        idle_timeout_with_auto_delete = true;
#endif
        size = 1048576;
    }
    apply {
        if (hdr.ports.isValid()) {
            flows.apply();
        } else {
            drop_packet();
        }
    }
}

control Deparser(packet_out pkt, inout headers_t hdr, in meta_t meta,
                 in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ports);
    }
}

PNA_NIC(Parser(), Main(), Deparser()) main;
