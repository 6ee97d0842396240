// xdp_model: packets to a watched MAC address are sent to user space as a
// perf event, then forwarded; others are dropped. A report header gets the
// helper's result: 0xfffffffe (-ENOENT) in a test run, where no reader has
// opened the perf event ring, and the same on the user-space target.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header report_t {
    bit<32> status;
}

struct headers_t {
    ethernet_t eth;
    report_t   report;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x88b5: report;
            default: accept;
        }
    }
    state report {
        p.extract(hdr.report);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    action sample() {
        BPF_PERF_EVENT_OUTPUT();
        omd.output_action = xdp_action.XDP_PASS;
    }
    action drop() {
        omd.output_action = xdp_action.XDP_DROP;
    }
    table watch {
        key = { hdr.eth.dst : exact; }
        actions = { sample; drop; }
        default_action = drop();
    }
    apply {
        omd.output_port = 0;
        watch.apply();
        if (hdr.report.isValid()) {
            hdr.report.status = BPF_PERF_EVENT_OUTPUT();
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.report);
    }
}

xdp(prs(), sw(), dprs()) main;
