// Not an error: a type variable that only an `@optional` parameter left
// out mentions needs no type (nothing is passed there).
#include <core.p4>

control Stage<H>(inout H hdr);
package Pipe<H0, H1>(Stage<H0> first, @optional Stage<H1> second);

control only(inout bit<8> h) {
    apply { h = 1; }
}

Pipe(only()) main;
