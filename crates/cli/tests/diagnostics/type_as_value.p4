// A type names no value: it cannot be assigned (only its members, such as
// `E.A` or `T.minSizeInBits()`, are values).
#include <core.p4>

control c(inout bit<8> x) {
    apply {
        x = bit<8>;
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
