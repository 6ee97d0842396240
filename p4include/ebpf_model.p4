// SPDX-License-Identifier: Apache-2.0
// p4bpf's own declaration of the ebpf_model architecture: a packet filter
// made of a parser and a control that decides accept or drop, as run by
// the eBPF back end of the P4 reference compiler. Written for p4bpf; names
// and signatures follow that back end's documentation so its programs
// compile unchanged.

#ifndef _P4BPF_EBPF_MODEL_P4_
#define _P4BPF_EBPF_MODEL_P4_

// The include-guard name other compilers use; program fragments test it
// to see whether this file was included.
#define _EBPF_MODEL_P4_

#include <core.p4>

// 32-bit counters in an eBPF map (an array, or a hash map when `sparse`),
// indexed by a 32-bit number. The data plane only adds; the control plane
// reads and resets.
extern CounterArray {
    // Indexes 0..max_index.
    CounterArray(bit<32> max_index, bool sparse);
    void increment(in bit<32> index);
    void add(in bit<32> index, in bit<32> value);
}

// Every table names one of these as its `implementation`.

// Backed by an eBPF array map (an LPM trie when the key uses lpm; then
// only the size is taken from here).
extern array_table {
    array_table(bit<32> size);
}

// Backed by an eBPF hash map.
extern hash_table {
    hash_table(bit<32> size);
}

// The filter: parse the packet, then decide whether it passes.
parser parse<H>(packet_in packet, out H headers);
control filter<H>(inout H headers, out bool accept);

package ebpfFilter<H>(parse<H> prs,
                      filter<H> filt);

#endif  // _P4BPF_EBPF_MODEL_P4_
