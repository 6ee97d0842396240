// Controls run from the `apply` block only: an action cannot apply one.
#include <core.p4>

control count(inout bit<8> x) {
    apply { x = x + 1; }
}

control c(inout bit<8> x) {
    count() counter;
    action bump() {
        counter.apply(x);
    }
    apply { bump(); }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
