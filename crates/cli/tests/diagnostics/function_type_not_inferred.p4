// `T` of `fresh` appears in no parameter: no argument can tell it, so the
// call needs `fresh<bit<8>>()`. (`same(x)` infers `T` from `x`.)
#include <core.p4>

extern T fresh<T>();
extern T same<T>(in T v);

control c(inout bit<8> x) {
    apply {
        x = same(x);
        x = fresh();
    }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
