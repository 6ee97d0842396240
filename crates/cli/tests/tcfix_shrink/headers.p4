// The headers the shrink programs parse: a 34-byte prefix of five
// headers (4, 9, 1, 6 and 14 bytes) whose bytes 12 and 13 are an
// EtherType, so frames with 0x0800 there take the kernel's IPv4 path.
// `a.sel` says how many bytes of the prefix the deparser emits.
header a_t { bit<8> sel; bit<24> x; }
header b_t { bit<72> v; }
header c_t { bit<8> v; }
header d_t { bit<48> v; }
header e_t { bit<112> v; }
struct headers_t { a_t a; b_t b; c_t c; d_t d; e_t e; }

// Leaves valid the first headers that add up to `a.sel` bytes (0, 4, 13,
// 14, 20 or 34): what the deparser then emits.
control KeepSelBytes(inout headers_t hdr) {
    apply {
        bit<8> sel = hdr.a.sel;
        if (sel < 34) { hdr.e.setInvalid(); }
        if (sel < 20) { hdr.d.setInvalid(); }
        if (sel < 14) { hdr.c.setInvalid(); }
        if (sel < 13) { hdr.b.setInvalid(); }
        if (sel < 4) { hdr.a.setInvalid(); }
    }
}

#define EXTRACT_PREFIX(pkt, hdr) \
    pkt.extract(hdr.a); pkt.extract(hdr.b); pkt.extract(hdr.c); pkt.extract(hdr.d); pkt.extract(hdr.e)
#define EMIT_PREFIX(pkt, hdr) \
    pkt.emit(hdr.a); pkt.emit(hdr.b); pkt.emit(hdr.c); pkt.emit(hdr.d); pkt.emit(hdr.e)
