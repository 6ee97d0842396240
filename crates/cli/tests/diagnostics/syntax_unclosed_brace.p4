// The control's body is never closed.
#include <core.p4>

control c(inout bit<8> x) {
    apply {
        x = 1;
    }
