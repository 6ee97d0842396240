// An `int` shifted left by a huge amount would need more memory than any
// constant should; the checker refuses it rather than guessing a value.
#include <core.p4>

const int BIG = 3 << 4000000000;

control c(inout bit<8> x) {
    apply {
        x = (bit<8>)BIG;
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
