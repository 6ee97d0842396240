// A 16-bit value assigned to an 8-bit variable.
#include <core.p4>

control c(inout bit<8> x, in bit<16> wide) {
    apply {
        x = wide;
    }
}
