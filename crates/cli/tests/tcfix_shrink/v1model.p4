// v1model: the deparser emits the first `a.sel` bytes of a 34-byte
// parsed prefix (`headers.p4`), then the unparsed payload follows.
#include <core.p4>
#include <v1model.p4>
#include "headers.p4"

struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start { EXTRACT_PREFIX(pkt, hdr); transition accept; }
}
control Verify(inout headers_t hdr, inout meta_t meta) { apply { } }
control Ig(inout headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    KeepSelBytes() keep;
    apply { sm.egress_spec = 2; keep.apply(hdr); }
}
control Eg(inout headers_t hdr, inout meta_t meta,
               inout standard_metadata_t sm) { apply { } }
control Compute(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { EMIT_PREFIX(pkt, hdr); } }

V1Switch(P(), Verify(), Ig(), Eg(), Compute(), D()) main;
