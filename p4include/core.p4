// SPDX-License-Identifier: Apache-2.0
// p4bpf's own core library: the declarations every P4_16 program may use
// (P4_16 language specification, "P4 core library"). Written for p4bpf;
// names and signatures follow the specification so programs written for
// other compilers keep working.

#ifndef _P4BPF_CORE_P4_
#define _P4BPF_CORE_P4_

// The include-guard name other compilers use; program fragments test it
// to see whether this file was included.
#define _CORE_P4_

// Errors the language itself can raise; programs may add their own with
// further `error { ... }` declarations.
error {
    NoError,               // nothing went wrong
    PacketTooShort,        // the packet ended before an extract finished
    NoMatch,               // a select expression matched no case
    StackOutOfBounds,      // a header stack was indexed past its end
    HeaderTooShort,        // a varbit extract asked for more bits than fit
    ParserTimeout,         // the parser ran longer than the target allows
    ParserInvalidArgument  // a parser operation got an unusable argument
}

// The packet as seen by a parser: a cursor over received bytes.
extern packet_in {
    // Copies a fixed-size header out of the packet and moves the cursor.
    void extract<T>(out T hdr);
    // Same for a header with one varbit field of the given size in bits.
    void extract<T>(out T variableSizeHeader,
                    in bit<32> variableFieldSizeInBits);
    // Reads a T at the cursor without moving it.
    T lookahead<T>();
    // Moves the cursor forward without copying.
    void advance(in bit<32> sizeInBits);
    // Packet length in bytes (not every target knows it).
    bit<32> length();
}

// The packet being built by a deparser.
extern packet_out {
    // Appends a header, stack, union or struct of those; invalid headers
    // are skipped.
    void emit<T>(in T hdr);
}

// In a parser: when `check` is false, record `toSignal` and reject.
extern void verify(in bool check, in error toSignal);

// Checked while compiling: a false `check` is an error. Returns `check`
// so the result can initialise a constant.
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

// The action that does nothing, usable as any table's default.
@noWarn("unused")
action NoAction() {}

// The match kinds every target understands.
match_kind {
    exact,    // all bits equal
    ternary,  // equal under a mask
    lpm       // longest prefix wins
}

#endif  // _P4BPF_CORE_P4_
