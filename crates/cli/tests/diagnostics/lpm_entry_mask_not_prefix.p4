// An `lpm` key takes a value or a value with a prefix mask; 0xF0F0 has a
// hole. (0xFF00 and a plain value are fine.)
#include <core.p4>

control c(inout bit<16> x) {
    action set(bit<16> v) { x = v; }
    table routes {
        key = { x : lpm; }
        actions = { set; NoAction; }
        const entries = {
            0x1200 &&& 0xFF00 : set(1);
            0x1234 : set(2);
            0x1000 &&& 0xF0F0 : set(3);
        }
    }
    apply {
        routes.apply();
    }
}

control C(inout bit<16> x);
package top(C c);
top(c()) main;
