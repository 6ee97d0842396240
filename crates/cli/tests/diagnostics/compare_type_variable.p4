// Values of a type variable cannot be compared: nothing says `T` has `==`.
#include <core.p4>

bool same<T>(in T a, in T b) {
    return a == b;
}

control c(inout bit<8> x) {
    apply {
        if (same(x, 8w1)) {
            x = 0;
        }
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
