// Extern instances are not values: `!=` is not defined on them.
#include <core.p4>

extern Counter {
    Counter();
    void count();
}

control c(inout bit<8> x) {
    Counter() first;
    Counter() second;
    apply {
        if (first != second) {
            first.count();
        }
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
