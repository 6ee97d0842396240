// Not an error: an `int` operand takes the other operand's width, on
// either side of the operator (here `|+|` and a comparison).
#include <core.p4>

control c(inout bit<8> x) {
    apply {
        x = (1 | 2) |+| x;
        if (-1 > 8w7) {
            x = 255 |-| x;
        }
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
