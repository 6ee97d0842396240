// `#error` stops the program when a required macro is missing.
#ifndef PORTS
#error PORTS must be defined, e.g. -DPORTS=4
#endif
#include <core.p4>
