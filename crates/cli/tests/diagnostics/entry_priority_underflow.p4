// Entries without a priority take the previous one's minus
// `priority_delta`: after 12, 2 and then -8, which is no priority.
#include <core.p4>

control c(inout bit<8> x) {
    action set(bit<8> v) { x = v; }
    table acl {
        key = { x : ternary; }
        actions = { set; NoAction; }
        priority_delta = 10;
        entries = {
            priority = 12 : 1 &&& 0xff : set(1);
            2 &&& 0xff : set(2);
            3 &&& 0xff : set(3);
        }
    }
    apply { acl.apply(); }
}

control C(inout bit<8> x);
package top(C c);
top(c()) main;
