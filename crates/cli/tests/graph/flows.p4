// Shapes `p4bpf graph` must draw: a parser loop over a stack, select on a
// tuple with masks, several controls, a sub-control, switch on action_run,
// hit inside a condition, exit.
#include <core.p4>
#include <xdp_model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<16> tci; bit<16> type; }
header ipv4_t { bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<32> rest; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst; }
struct headers_t { eth_t eth; vlan_t[2] vlans; ipv4_t ipv4; }

parser FlowParser(packet_in p, out headers_t h) {
    state start {
        p.extract(h.eth);
        transition select(h.eth.type) {
            0x8100: parse_vlan;
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_vlan {
        p.extract(h.vlans.next);
        transition select(h.vlans.last.type, h.vlans.last.tci) {
            (0x8100, _): parse_vlan;
            (0x0800, 0x0fff &&& 0x0fff): parse_ipv4;
            default: reject;
        }
    }
    state parse_ipv4 {
        p.extract(h.ipv4);
        transition accept;
    }
}

control Acl(inout headers_t h, inout bool deny) {
    action block() { deny = true; }
    table acl_rules {
        key = { h.ipv4.src: ternary; h.ipv4.dst: ternary; }
        actions = { block; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (h.ipv4.isValid() && acl_rules.apply().hit) {
            deny = true;
        }
    }
}

control FlowSwitch(inout headers_t h, in xdp_input i, out xdp_output o) {
    bool deny = false;
    Acl() acl;
    action forward(bit<32> port) { o.output_port = port; o.output_action = xdp_action.XDP_REDIRECT; }
    action drop() { o.output_action = xdp_action.XDP_DROP; }
    table routes {
        key = { h.ipv4.dst: lpm; }
        actions = { forward; drop; }
        default_action = drop();
    }
    table vlan_ports {
        key = { h.vlans[0].tci: exact; }
        actions = { forward; drop; }
        default_action = drop();
    }
    apply {
        o.output_action = xdp_action.XDP_PASS;
        acl.apply(h, deny);
        if (deny) {
            drop();
            exit;
        }
        switch (routes.apply().action_run) {
            drop: { vlan_ports.apply(); }
            default: { }
        }
    }
}

control FlowDeparser(in headers_t h, packet_out p) {
    apply {
        p.emit(h.eth);
        p.emit(h.vlans);
        p.emit(h.ipv4);
    }
}

xdp(FlowParser(), FlowSwitch(), FlowDeparser()) main;
