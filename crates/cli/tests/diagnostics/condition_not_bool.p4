// An `if` on a bit<8> value: P4 has no implicit conversion to bool.
#include <core.p4>

control c(inout bit<8> x) {
    apply {
        if (x) {
            x = 0;
        }
    }
}
