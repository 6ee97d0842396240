// Parsers loop through their transitions; a state has no `for` statement.
#include <core.p4>

parser p(packet_in pk, out bit<8> sum) {
    state start {
        sum = 0;
        for (bit<8> i = 0; i < 4; i = i + 1) {
            sum = sum + i;
        }
        transition accept;
    }
}

parser P(packet_in pk, out bit<8> sum);
package top(P p);
top(p()) main;
