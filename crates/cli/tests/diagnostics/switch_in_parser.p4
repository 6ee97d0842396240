// Parser states choose with `select`; a `switch` statement is not allowed.
#include <core.p4>

parser p(packet_in pk, out bit<8> x) {
    state start {
        switch (x) {
            1: { x = 2; }
        }
        transition accept;
    }
}

parser P(packet_in pk, out bit<8> x);
package top(P p);
top(p()) main;
