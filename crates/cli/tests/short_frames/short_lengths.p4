// Frames of every short length, as BMv2 tests send them: 1, 9 and 13
// bytes (shorter than an Ethernet header) and Ethernet frames announcing
// IPv4 without a whole IPv4 header. The kernel target runs the ones
// BPF_PROG_TEST_RUN refuses through a TUN device, with the same maps: the
// table and the counter below are shared by every packet of the script.
// The program never resizes a packet (XDP's bpf_xdp_adjust_head leaves no
// frame shorter than 14 bytes).
#include <core.p4>
#include <v1model.p4>

header first_t { bit<8> kind; }
header mid_t { bit<64> v; }
header tail_t { bit<32> w; }
struct headers_t { first_t first; mid_t mid; tail_t tail; }
struct meta_t { bit<8> unused; }

parser ShortParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                   inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.first);
        transition select(hdr.first.kind) {
            0x09: nine;
            0x0d: thirteen;
            default: accept;
        }
    }
    state nine { pkt.extract(hdr.mid); transition accept; }
    state thirteen { pkt.extract(hdr.mid); pkt.extract(hdr.tail); transition accept; }
}

control ShortVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control ShortIngress(inout headers_t hdr, inout meta_t meta,
                     inout standard_metadata_t sm) {
    counter(256, CounterType.packets) seen;

    action forward(bit<9> port) { sm.egress_spec = port; }
    action discard() { mark_to_drop(sm); }

    table route {
        key = { hdr.first.kind : exact; }
        actions = { forward; discard; }
        default_action = discard();
    }

    apply {
        seen.count((bit<32>)hdr.first.kind);
        route.apply();
        if (hdr.mid.isValid()) {
            hdr.mid.v = hdr.mid.v + 1;
        }
        if (hdr.tail.isValid()) {
            hdr.tail.w = hdr.tail.w ^ 0xffffffff;
        }
        if (sm.parser_error == error.PacketTooShort) {
            hdr.first.kind = 0xee;
        }
    }
}

control ShortEgress(inout headers_t hdr, inout meta_t meta,
                    inout standard_metadata_t sm) { apply { } }

control ShortCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control ShortDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.first); pkt.emit(hdr.mid); pkt.emit(hdr.tail); }
}

V1Switch(ShortParser(), ShortVerify(), ShortIngress(), ShortEgress(),
         ShortCompute(), ShortDeparser()) main;
