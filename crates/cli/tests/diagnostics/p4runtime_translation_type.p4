// The controller's type of `@p4runtime_translation` is a width, `bit<W>`
// or `string`; `bool` is none of these. (The second one is fine.)
#include <core.p4>

@p4runtime_translation("example.org/Flag_t", bool)
type bit<8> Flag_t;
@p4runtime_translation("example.org/Port_t", bit<32>)
type bit<9> Port_t;

control c(inout Flag_t f, inout Port_t p) {
    apply {}
}

control C(inout Flag_t f, inout Port_t p);
package top(C c);
top(c()) main;
