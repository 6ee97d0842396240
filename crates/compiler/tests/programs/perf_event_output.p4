// xdp_model: BPF_PERF_EVENT_OUTPUT called from an action and from the
// control body; the second call's result is written into the packet.
#include <core.p4>
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header report_t { bit<32> status; }
struct hs { eth_t eth; report_t report; }
parser prs(packet_in p, out hs hdr) {
    state start {
        p.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x88b5: report; default: accept; }
    }
    state report { p.extract(hdr.report); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    action sample() {
        BPF_PERF_EVENT_OUTPUT();
        omd.output_action = xdp_action.XDP_PASS;
    }
    action drop() { omd.output_action = xdp_action.XDP_DROP; }
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
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.eth); p.emit(hdr.report); } }
xdp(prs(), sw(), dprs()) main;
