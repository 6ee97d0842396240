// An assignment from a variable that is never declared.
#include <core.p4>

control c(inout bit<8> x) {
    apply {
        x = y;
    }
}
