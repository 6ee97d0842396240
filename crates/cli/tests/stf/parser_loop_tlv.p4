// Parser loops no header stack bounds: a walk over type-length-value
// options in packet order (pads, marks, options skipped by their length,
// an end marker), where every way around the loop leaves a different
// offset, and a second loop that never consumes a byte. The first needs
// the loop function to load at all; the second ends in ParserTimeout
// (dropped) after the loop bound. Counts go to a summary header the
// parser makes valid.
#include <core.p4>
#include <xdp_model.p4>

header eth_h { bit<48> dst; bit<48> src; bit<16> type; }
header pad_h { bit<8> kind; }
header mark_h { bit<8> kind; bit<8> len; bit<16> value; }
header opt_h { bit<8> kind; bit<8> len; }
header end_h { bit<8> kind; }
header summary_h { bit<8> pads; bit<8> marks; bit<8> skipped; bit<8> last_len; }

struct headers_t {
    eth_h     eth;
    summary_h summary;
    pad_h     pad;
    mark_h    mark;
    opt_h     opt;
    end_h     end;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        hdr.summary.setValid();
        hdr.summary.pads = 0;
        hdr.summary.marks = 0;
        hdr.summary.skipped = 0;
        hdr.summary.last_len = 0;
        transition select(hdr.eth.type) {
            0x88b6: options;
            default: accept;
        }
    }
    state options {
        transition select(p.lookahead<bit<8>>()) {
            0: end;
            1: pad;
            2: mark;
            0xfe: spin;
            default: other;
        }
    }
    state pad {
        p.extract(hdr.pad);
        hdr.summary.pads = hdr.summary.pads + 1;
        transition options;
    }
    state mark {
        p.extract(hdr.mark);
        hdr.summary.marks = hdr.summary.marks + 1;
        transition options;
    }
    state other {
        p.extract(hdr.opt);
        p.advance(((bit<32>) hdr.opt.len - 2) * 8);
        hdr.summary.skipped = hdr.summary.skipped + 1;
        hdr.summary.last_len = hdr.opt.len;
        transition options;
    }
    state spin {
        transition spin;
    }
    state end {
        p.extract(hdr.end);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        if (hdr.mark.isValid()) {
            hdr.mark.value = hdr.mark.value + 1;
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.summary);
        p.emit(hdr.mark);
        p.emit(hdr.end);
    }
}

xdp(prs(), sw(), dprs()) main;
