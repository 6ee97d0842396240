// A statement without its semicolon.
#include <core.p4>

control c(inout bit<8> x) {
    apply {
        x = 1
        x = 2;
    }
}
