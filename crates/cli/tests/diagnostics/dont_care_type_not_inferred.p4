// `_` carries no type: passed where only it could fix `T`, nothing tells
// what `T` is. (With `x` beside it, `T` is `bit<8>` and `_` is fine.)
#include <core.p4>

struct Pair<T> {
    T first;
    T second;
}

extern void read_pair<T>(out Pair<T> p);
extern void read_into<T>(out T a, in T hint);

control c(inout bit<8> x) {
    apply {
        read_into(_, x);
        read_pair(_);
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
