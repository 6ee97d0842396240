// The result of applying a table has members, but is not itself a value.
#include <core.p4>

control c(inout bit<8> x) {
    action set(bit<8> v) { x = v; }
    table t {
        key = { x : exact; }
        actions = { set; NoAction; }
    }
    apply {
        if (t.apply() == t.apply()) {
            x = 1;
        }
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
