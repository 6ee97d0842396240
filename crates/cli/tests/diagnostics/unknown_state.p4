// A transition to a state that is never declared.
#include <core.p4>

header h_t {
    bit<8> f;
}

parser p(packet_in packet, out h_t h) {
    state start {
        packet.extract(h);
        transition parse_next;
    }
}
