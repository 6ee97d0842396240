// Structured annotation values are compile-time data; an extern instance
// is not (a constant is).
#include <core.p4>

extern Meter {
    Meter();
}

Meter() slow;
const bit<8> LIMIT = 10;

@policy[meter = slow, limit = LIMIT]
control c(inout bit<8> x) {
    apply {}
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
