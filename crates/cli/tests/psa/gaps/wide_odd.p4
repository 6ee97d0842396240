// Fields wider than 64 bits that are not whole bytes, placed to break a
// byte-copy design: one starting and ending inside bytes (`a`), one
// starting on a byte and ending inside one (`c`), one starting inside a
// byte and ending on one (`d`), each beside narrow fields that share its
// bytes. The ingress parser selects on `c` through a value set; tables
// key on them by exact, ternary, lpm and optional; actions take such
// values from the control plane; a register keeps one; a digest sends one.
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header odd_t {
    bit<3>  lead;
    bit<70> a;
    bit<7>  mid;
    bit<65> c;
    bit<7>  tail;
    bit<4>  nib;
    bit<68> d;
}

struct headers_t {
    ethernet_t ethernet;
    odd_t odd;
}

struct seen_t {
    bit<65> c;
    bit<7>  tail;
}

struct meta_t {}
struct empty_t {}

parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    value_set<bit<65>>(4) special;
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.odd);
        transition select(hdr.odd.c) {
            special: mark;
            default: accept;
        }
    }
    state mark {
        hdr.odd.nib = 0xf;
        transition accept;
    }
}

control In(inout headers_t hdr, inout meta_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    Register<bit<65>, bit<8>>(4) last_c;
    Digest<seen_t>() seen;

    action set_d(bit<68> v) { hdr.odd.d = v; }
    action set_a(bit<70> v) { hdr.odd.a = v; }
    action mark_tail(bit<7> t) { hdr.odd.tail = t; }

    table by_a {
        key = { hdr.odd.a : exact; }
        actions = { set_d; NoAction; }
        default_action = NoAction;
    }
    table by_c {
        key = { hdr.odd.c : ternary; hdr.odd.mid : exact; }
        actions = { mark_tail; NoAction; }
        default_action = NoAction;
    }
    table by_d {
        key = { hdr.odd.d : lpm; }
        actions = { set_a; NoAction; }
        default_action = NoAction;
    }
    table by_opt {
        key = { hdr.odd.a : optional; hdr.odd.lead : exact; }
        actions = { mark_tail; NoAction; }
        default_action = NoAction;
    }

    apply {
        send_to_port(ostd, (PortId_t) 2);
        if (hdr.odd.lead == 1) {
            by_a.apply();
        } else if (hdr.odd.lead == 2) {
            by_c.apply();
        } else if (hdr.odd.lead == 3) {
            by_d.apply();
        } else if (hdr.odd.lead == 4) {
            by_opt.apply();
        } else if (hdr.odd.lead == 5) {
            // Arithmetic and comparisons on the odd widths.
            hdr.odd.a = hdr.odd.a + 1;
            hdr.odd.d = hdr.odd.d - 1;
            if (hdr.odd.c > 65w0xffffffffffffffff) {
                hdr.odd.mid = 0x55;
            }
            hdr.odd.c = hdr.odd.c ^ 65w0x10000000000000001;
        } else if (hdr.odd.lead == 6) {
            last_c.write(0, hdr.odd.c);
            seen.pack({hdr.odd.c, hdr.odd.tail});
        } else if (hdr.odd.lead == 7) {
            hdr.odd.c = last_c.read(0);
        }
    }
}

control InDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in meta_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.odd);
    }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { transition accept; }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

PSA_Switch(IngressPipeline(InParser(), In(), InDeparser()),
           PacketReplicationEngine(),
           EgressPipeline(EgParser(), Eg(), EgDeparser()),
           BufferingQueueingEngine()) main;
