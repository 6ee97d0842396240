// An include file that does not exist.
#include <core.p4>
#include "no_such_file.p4"

const bit<8> X = 1;
