// Compiler: a varbit field extracted with a size computed from the packet
// (IPv4 options from IHL) and emitted again, in place and when a header
// inserted in front makes the deparser rebuild the packet; sizes that are
// not whole bytes or exceed the maximum reject the packet.
#include <core.p4>
#include <xdp_model.p4>

header mark_t {
    bit<8> m;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> len;
    bit<32> id_flags;
    bit<8>  ttl;
    bit<8>  proto;
    bit<16> csum;
    bit<32> src;
    bit<32> dst;
}

header options_t {
    bit<8>      kind;
    varbit<312> rest;
}

header tail_t {
    bit<8> x;
}

struct headers_t {
    mark_t    mark;
    ipv4_t    ipv4;
    options_t opts;
    tail_t    tail;
}

parser prs(packet_in p, out headers_t hdr) {
    state start {
        p.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl) {
            5: tail;
            default: options;
        }
    }
    state options {
        // One byte of the options is `kind`; `tos` can spoil the size.
        p.extract(hdr.opts, ((bit<32>)hdr.ipv4.ihl - 5) * 32 - 8 + (bit<32>)hdr.ipv4.tos);
        transition tail;
    }
    state tail {
        p.extract(hdr.tail);
        transition accept;
    }
}

control sw(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {
    apply {
        omd.output_port = 0;
        omd.output_action = xdp_action.XDP_PASS;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        hdr.tail.x = hdr.opts.isValid() ? 8w1 : 8w0;
        if (hdr.ipv4.dst == 0x0a000001) {
            hdr.mark.setValid();
            hdr.mark.m = hdr.opts.kind;
        }
    }
}

control dprs(in headers_t hdr, packet_out p) {
    apply {
        p.emit(hdr.mark);
        p.emit(hdr.ipv4);
        p.emit(hdr.opts);
        p.emit(hdr.tail);
    }
}

xdp(prs(), sw(), dprs()) main;
