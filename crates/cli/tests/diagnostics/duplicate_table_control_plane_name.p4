// A table with an absolute `@name` in a control instantiated twice: both
// instances' tables would have the control-plane name `.acl`.
#include <core.p4>

control filter(inout bit<8> x) {
    @name(".acl") table acl {
        key = { x : exact; }
        actions = { NoAction; }
    }
    apply { acl.apply(); }
}

control pipe(inout bit<8> x) {
    filter() first;
    filter() second;
    apply {
        first.apply(x);
        second.apply(x);
    }
}

control C(inout bit<8> x);
package top(C c);
top(pipe()) main;
