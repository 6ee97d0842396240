// A header field of a type that is never declared.
#include <core.p4>

header h_t {
    foo_t field;
}
