// An I2E clone with a field list, from actions of two tables, before a
// deparser of eight optional headers: the shape whose clone loop (64
// members, inlined per path) went past clang's stack and, with eight
// unjoined emits, the verifier's 1M instructions.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header cpu_t { bit<16> task; bit<16> port; }
header v4_t { bit<8> vihl; bit<8> tos; bit<16> len; bit<32> id; bit<8> ttl;
              bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst; }
header v6_t { bit<32> vtf; bit<16> len; bit<8> next; bit<8> hops;
              bit<128> src; bit<128> dst; }
header tcp_t { bit<16> sport; bit<16> dport; bit<32> seq; bit<32> ack; bit<32> rest; bit<32> more; }
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header icmp_t { bit<8> type; bit<8> code; bit<16> csum; }
header icmp6_t { bit<8> type; bit<8> code; bit<16> csum; }
struct headers_t { eth_t eth; cpu_t cpu; v4_t v4; v6_t v6; tcp_t tcp; udp_t udp;
                   icmp_t icmp; icmp6_t icmp6; }
struct meta_t {
    @field_list(0) bit<16> task;
    @field_list(0) bit<9> port;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x0800: v4; 0x86dd: v6; default: accept; }
    }
    state v4 {
        pkt.extract(hdr.v4);
        transition select(hdr.v4.proto) { 6: tcp; 17: udp; 1: icmp; default: accept; }
    }
    state v6 {
        pkt.extract(hdr.v6);
        transition select(hdr.v6.next) { 6: tcp; 17: udp; 58: icmp6; default: accept; }
    }
    state tcp { pkt.extract(hdr.tcp); transition accept; }
    state udp { pkt.extract(hdr.udp); transition accept; }
    state icmp { pkt.extract(hdr.icmp); transition accept; }
    state icmp6 { pkt.extract(hdr.icmp6); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action to_cpu(bit<16> task) {
        meta.task = task;
        meta.port = sm.ingress_port;
        clone_preserving_field_list(CloneType.I2E, 100, 0);
    }
    action forward(bit<9> port) { sm.egress_spec = port; }
    action echo() {
        hdr.v6.dst = hdr.v6.src;
        hdr.icmp6.type = 129;
    }
    table v6_hosts {
        key = { hdr.v6.dst : exact; }
        actions = { to_cpu; echo; forward; NoAction; }
        default_action = to_cpu(1);
    }
    table v4_nets {
        key = { hdr.v4.dst : exact; }
        actions = { to_cpu; forward; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.v6.isValid()) { v6_hosts.apply(); }
        if (hdr.v4.isValid()) { v4_nets.apply(); }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {
            hdr.cpu.setValid();
            hdr.cpu.task = meta.task;
            hdr.cpu.port = (bit<16>)meta.port;
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth); pkt.emit(hdr.cpu); pkt.emit(hdr.v4); pkt.emit(hdr.v6);
        pkt.emit(hdr.tcp); pkt.emit(hdr.udp); pkt.emit(hdr.icmp); pkt.emit(hdr.icmp6);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
