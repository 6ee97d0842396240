// `@name(".drop")` gives the action in `egress` the absolute name `.drop`,
// which the top-level action `drop` already has; both are in tables, so
// the control plane could not tell them apart.
#include <core.p4>

action drop() {}

control ingress(inout bit<8> x) {
    table t {
        key = { x : exact; }
        actions = { drop; }
    }
    apply { t.apply(); }
}

control egress(inout bit<8> x) {
    @name(".drop") action discard() { x = 0; }
    table t {
        key = { x : exact; }
        actions = { discard; }
    }
    apply { t.apply(); }
}

control C(inout bit<8> x);
package top(C i, C e);
top(ingress(), egress()) main;
