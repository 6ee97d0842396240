// Constructor arguments are evaluated when the program is compiled, so a
// header field cannot size a register, even through a factory function.
#include <core.p4>

extern Register<T> {
    Register(bit<32> size);
    T read(in bit<32> index);
}
extern Register<bit<8>> make_register(bit<32> size);

control inner(inout bit<32> x)(Register<bit<8>> r) {
    apply { x = (bit<32>)r.read(0); }
}

control c(inout bit<32> x) {
    inner(make_register(x)) from_packet;
    apply {
        from_packet.apply(x);
    }
}

control C(inout bit<32> x);
package top(C c);
top(c()) main;
