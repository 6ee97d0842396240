// Short frames a v1model program grows at the front: a one-byte tag, and
// a two-byte one on frames that announce a second header. In the kernel
// at TC the grown frame must come out whole (the route through a TUN
// device keeps the bytes bpf_skb_change_head adds); at XDP the kernel's
// bpf_xdp_adjust_head leaves no frame shorter than 14 bytes, so these
// frames are dropped there.
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> code; }
header wide_tag_t { bit<16> code; }
header head_t { bit<8> kind; }
header body_t { bit<24> v; }
struct headers_t { wide_tag_t wide; tag_t tag; head_t head; body_t body; }
struct meta_t { bit<8> unused; }

parser GrowParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.head);
        transition select(hdr.head.kind) {
            0xb0: body;
            default: accept;
        }
    }
    state body { pkt.extract(hdr.body); transition accept; }
}

control GrowVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control GrowIngress(inout headers_t hdr, inout meta_t meta,
                    inout standard_metadata_t sm) {
    apply {
        if (hdr.body.isValid()) {
            hdr.wide.setValid();
            hdr.wide.code = 0xabcd;
            hdr.body.v = hdr.body.v + 1;
            sm.egress_spec = 2;
        } else if (hdr.head.kind == 0xdd) {
            mark_to_drop(sm);
        } else {
            hdr.tag.setValid();
            hdr.tag.code = hdr.head.kind ^ 0xff;
            sm.egress_spec = sm.ingress_port;
        }
    }
}

control GrowEgress(inout headers_t hdr, inout meta_t meta,
                   inout standard_metadata_t sm) { apply { } }

control GrowCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control GrowDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.wide); pkt.emit(hdr.tag); pkt.emit(hdr.head); pkt.emit(hdr.body); }
}

V1Switch(GrowParser(), GrowVerify(), GrowIngress(), GrowEgress(),
         GrowCompute(), GrowDeparser()) main;
