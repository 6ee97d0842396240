// Only the integers 0 and 1 convert to `bool`; `(bool)1` is fine.
#include <core.p4>

control c(inout bool b) {
    apply {
        b = (bool)1;
        b = (bool)2;
    }
}

control C(inout bool b);
package top(C c);
top(c()) main;
