// A v1model block whose register index comes from a register: each
// packet reads `next[0]`, counts itself in `hits` at that slot and moves
// `next[0]` on round the 8 slots, then applies a table (a kernel helper
// call). A bpf_spin_lock could not hold it (the index is not known
// before the block), so it takes a lock word: after 8 * n packets from
// any CPUs every slot holds exactly n. The probe carries out the slot.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header probe_t {
    bit<32> slot;
    bit<32> hits;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t probe;
}

struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout meta_t meta,
            inout standard_metadata_t std) {
    register<bit<32>>(1) next;
    register<bit<32>>(8) hits;

    action to(bit<9> port) {
        std.egress_spec = port;
    }
    table route {
        key = { hdr.ethernet.dst : exact; }
        actions = { to; NoAction; }
        default_action = to(2);
    }

    apply {
        @atomic {
            bit<32> slot;
            next.read(slot, 0);
            bit<32> n;
            hits.read(n, slot);
            hits.write(slot, n + 1);
            hdr.probe.slot = slot;
            hdr.probe.hits = n + 1;
            next.write(0, (slot + 1) & 7);
            route.apply();
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t std) {
    apply { }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
