// Constants are values: an extern object is instantiated, never a constant.
#include <core.p4>

extern Checksum {
    Checksum();
    bit<16> get();
}

const Checksum ck = Checksum();

control c(inout bit<8> x) {
    apply {}
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
