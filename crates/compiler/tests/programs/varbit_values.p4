// v1model: a header's varbit field read with a run-time size, copied to a
// local and a metadata struct, compared, covered by a checksum, emitted.
#include <core.p4>
#include <v1model.p4>
header opt_t { bit<8> len; bit<16> csum; varbit<40> data; }
struct meta_t { varbit<40> saved; }
struct hs { opt_t opt; }
parser prs(packet_in p, out hs hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        p.extract(hdr.opt, (bit<32>)p.lookahead<bit<8>>() * 8);
        transition accept;
    }
}
control vc(inout hs hdr, inout meta_t meta) { apply { } }
control ing(inout hs hdr, inout meta_t meta, inout standard_metadata_t sm) {
    varbit<40> local;
    apply {
        meta.saved = hdr.opt.data;
        local = meta.saved;
        sm.egress_spec = local == hdr.opt.data ? 9w1 : 9w2;
    }
}
control eg(inout hs hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control cc(inout hs hdr, inout meta_t meta) {
    apply {
        update_checksum(true, { hdr.opt.len, hdr.opt.data }, hdr.opt.csum, HashAlgorithm.csum16);
    }
}
control dep(packet_out p, in hs hdr) { apply { p.emit(hdr.opt); } }
V1Switch(prs(), vc(), ing(), eg(), cc(), dep()) main;
