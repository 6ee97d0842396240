// `H` and `M` of `Pipe` appear only in a parameter left to its default,
// whose own type needs them: nothing tells what they are.
#include <core.p4>

control Stage<H, M>(inout H hdr, inout M meta);

control pass<H, M>(inout H hdr, inout M meta) {
    apply {}
}

package Pipe<H, M>(Stage<H, M> s = pass<H, M>());

Pipe() main;
