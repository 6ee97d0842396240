// ebpf_model: per-packet state over 512 bytes lives in a per-CPU array.
#include <core.p4>
#include <ebpf_model.p4>

header word_t {
    bit<64> value;
}

struct many_t {
    word_t[40] words;
}

parser prs(packet_in p, out many_t hdr) {
    state start {
        p.extract(hdr.words[0]);
        p.extract(hdr.words[1]);
        transition select(hdr.words[1].value[7:0], p.lookahead<bit<8>>()) {
            (0x01 &&& 0x0f, 0x10 .. 0x20): accept;
            (_, _): reject;
        }
    }
}

control pipe(inout many_t hdr, out bool pass) {
    apply {
        pass = hdr.words[0].value != 0 && hdr.words[39].isValid() == false;
    }
}

ebpfFilter(prs(), pipe()) main;
