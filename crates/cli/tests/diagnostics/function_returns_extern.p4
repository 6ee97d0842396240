// Functions compute values; an extern object is instantiated, not returned.
#include <core.p4>

extern Checksum {
    Checksum();
}

Checksum make(in bit<8> seed) {
    return Checksum();
}

control c(inout bit<8> x) {
    apply {}
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
