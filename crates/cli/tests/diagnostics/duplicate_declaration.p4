// Two constants with the same name at the top level.
#include <core.p4>

const bit<8> LIMIT = 1;
const bit<8> LIMIT = 2;
