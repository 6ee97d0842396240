// Action parameters carry data the control plane may supply: neither an
// extern object nor an arbitrary-precision `int`.
#include <core.p4>

extern Checksum {
    Checksum();
    bit<16> get();
}

control c(inout bit<16> x) {
    action with_extern(Checksum ck) { x = ck.get(); }
    action with_int(int n) { x = (bit<16>)n; }
    apply {}
}

control C(inout bit<16> x);
package top(C c);
top(c()) main;
