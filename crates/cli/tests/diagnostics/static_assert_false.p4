#include <core.p4>

const bit<8> SLOTS = 12;

control c(inout bit<8> x) {
    apply {
        static_assert(SLOTS <= 8, "SLOTS must fit a byte's bits");
        x = SLOTS;
    }
}
