// A `varbit` has no fixed width to compare keysets with: no `select` on it.
#include <core.p4>

header option_h {
    bit<8> kind;
    varbit<320> data;
}

parser p(packet_in pk, out option_h opt) {
    state start {
        pk.extract(opt, 32);
        transition select(opt.kind, opt.data) {
            (1, _): accept;
            default: reject;
        }
    }
}

parser P(packet_in pk, out option_h opt);
package top(P p);
top(p()) main;
