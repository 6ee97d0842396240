// Constructor arguments given to `main`'s blocks: the parser takes a bool
// that decides whether it parses past Ethernet, and one control fills both
// ingress and egress with different arguments (a bit<48> added to the
// source, a bool choosing whether it sets the port), named and positional.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> v; }
struct headers_t { eth_t eth; tag_t tag; }
struct meta_t { bit<8> unused; }

parser TagParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm)(bool parse_tags, bit<16> tag_type) {
    state start {
        pkt.extract(hdr.eth);
        transition select(parse_tags && hdr.eth.type == tag_type) {
            true: tag;
            default: accept;
        }
    }
    state tag { pkt.extract(hdr.tag); transition accept; }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control Stage(inout headers_t hdr, inout meta_t meta,
              inout standard_metadata_t sm)(bit<48> step, bool routes) {
    apply {
        hdr.eth.src = hdr.eth.src + step;
        if (routes) {
            sm.egress_spec = hdr.tag.isValid() ? (bit<9>)hdr.tag.v : 9w1;
        }
    }
}

control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control Out(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); }
}

V1Switch(TagParser(true, 0x88b5),
         NoVerify(),
         Stage(0x100, true),
         Stage(routes = false, step = 0x10000),
         NoCompute(),
         Out()) main;
