// An action called with one argument too few.
#include <core.p4>

control c(inout bit<8> x) {
    action set(bit<8> a, bit<8> b) {
        x = a + b;
    }
    apply {
        set(1);
    }
}
