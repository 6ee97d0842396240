// A control holds controls and externs; a parser cannot be instantiated
// (or applied) inside one.
#include <core.p4>

parser inner(packet_in p, out bit<8> x) {
    state start {
        x = 1;
        transition accept;
    }
}

control c(inout bit<8> x) {
    inner() sub;
    apply {}
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
