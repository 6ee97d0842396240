// ebpf_model: an `actions` list that binds an action's directional
// parameter (a wrapper action takes the control plane's) and names a
// parameterless action with parentheses.
#include <core.p4>
#include <ebpf_model.p4>
header h_t { bit<8> op; bit<8> count; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control pipe(inout hs hdr, out bool pass) {
    action Reject() { pass = false; }
    action bump(inout bit<8> c, bit<8> by) { c = c + by; pass = c != 0; }
    table t {
        key = { hdr.h.op : exact; }
        actions = { Reject(); bump(hdr.h.count); }
        default_action = bump(hdr.h.count, 1);
    }
    apply { pass = true; t.apply(); }
}
ebpfFilter(prs(), pipe()) main;
