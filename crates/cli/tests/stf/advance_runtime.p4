// `advance` by a header field: the parser skips a run-time number of bits
// (whole bytes, else ParserInvalidArgument; inside the packet, else
// PacketTooShort) and reads the header after the gap. The deparser emits
// the headers only, so the skipped bytes leave the packet.
#include <core.p4>
#include <xdp_model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header skip_t { bit<8> bits_to_skip; }
header count_t { bit<16> value; }

struct headers_t {
    ethernet_t eth;
    skip_t     skip;
    count_t    count;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.eth);
        p.extract(hdr.skip);
        p.advance((bit<32>) hdr.skip.bits_to_skip);
        p.extract(hdr.count);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        hdr.count.value = hdr.count.value + 1;
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.eth);
        p.emit(hdr.skip);
        p.emit(hdr.count);
    }
}

xdp(prs(), sw(), dprs()) main;
