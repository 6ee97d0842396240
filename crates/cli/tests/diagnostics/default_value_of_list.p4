// `...` as a default stands for the type's default value; a list has none.
#include <core.p4>

extern Table<T> {
    Table(list<T> initial = ...);
}

control c(inout bit<8> x) {
    apply {}
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
