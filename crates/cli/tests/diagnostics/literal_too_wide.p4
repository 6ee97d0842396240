// A 4-bit literal whose value needs 5 bits.
#include <core.p4>

const bit<4> NIBBLE = 4w16;
