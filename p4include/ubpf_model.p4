// SPDX-License-Identifier: Apache-2.0
// p4bpf's own declaration of the ubpf_model architecture (parser,
// pipeline and deparser, as run by the user-space uBPF back end of the P4
// reference compiler). Written for p4bpf; names and signatures follow that
// back end so its programs compile unchanged.
//
// `UBPF_MODEL_VERSION` picks the revision: 20200515 (default) passes a
// `standard_metadata` struct to the parser and pipeline; earlier values
// leave it out.

#ifndef _P4BPF_UBPF_MODEL_P4_
#define _P4BPF_UBPF_MODEL_P4_

// The include-guard name other compilers use; program fragments test it
// to see whether this file was included.
#define _UBPF_MODEL_P4_

#include <core.p4>

#ifndef UBPF_MODEL_VERSION
#define UBPF_MODEL_VERSION 20200515
#endif

const bit<32> __ubpf_model_version = UBPF_MODEL_VERSION;

#if UBPF_MODEL_VERSION >= 20200515
// What happens to the packet after the pipeline.
enum ubpf_action {
    ABORT,
    DROP,
    PASS,
    REDIRECT
}

struct standard_metadata {
    bit<32>     input_port;
    bit<32>     packet_length;
    ubpf_action output_action;
    bit<32>     output_port;
    bool        clone;
    bit<32>     clone_port;
}
#endif

// Packets pass by default; these change the verdict (pipeline only).
extern void mark_to_drop();
extern void mark_to_pass();

// `size` values of type T kept across packets, indexed by S; starts
// uninitialised.
extern Register<T, S> {
    Register(bit<32> size);
    T read(in S index);
    void write(in S index, in T value);
}

// Current time in nanoseconds.
extern bit<48> ubpf_time_get_ns();

// Cuts the packet to at most `len` bytes.
extern void truncate(in bit<32> len);

enum HashAlgorithm {
    lookup3
}

// A 32-bit hash of `data` (a list of bit fields, at most 64 bits in all).
extern void hash<D>(out bit<32> result, in HashAlgorithm algo, in D data);

// Incremental checksum update (RFC 1624) for a 16- or 32-bit field.
extern bit<16> csum_replace2(in bit<16> csum, in bit<16> old, in bit<16> new);
extern bit<16> csum_replace4(in bit<16> csum, in bit<32> old, in bit<32> new);

#if UBPF_MODEL_VERSION >= 20200515
parser parse<H, M>(packet_in packet, out H headers, inout M meta, inout standard_metadata std);
control pipeline<H, M>(inout H headers, inout M meta, inout standard_metadata std);
#else
parser parse<H, M>(packet_in packet, out H headers, inout M meta);
control pipeline<H, M>(inout H headers, inout M meta);
#endif

// Only packet_out.emit calls belong here.
@deparser
control deparser<H>(packet_out b, in H headers);

package ubpf<H, M>(parse<H, M> prs,
                   pipeline<H, M> p,
                   deparser<H> dprs);

#endif  // _P4BPF_UBPF_MODEL_P4_
