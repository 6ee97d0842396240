// `...` stands for the remaining keys, so only the last element may be it.
#include <core.p4>

parser p(packet_in pk, out bit<8> a, out bit<8> b) {
    state start {
        transition select(a, b) {
            (1, ...): accept;
            (..., 2): accept;
            default: reject;
        }
    }
}

parser P(packet_in pk, out bit<8> a, out bit<8> b);
package top(P p);
top(p()) main;
