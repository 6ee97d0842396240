// A table's `size` is a number of entries: never negative.
#include <core.p4>

control c(inout bit<8> x) {
    table t {
        key = { x : exact; }
        actions = { NoAction; }
        size = -4;
    }
    apply { t.apply(); }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
