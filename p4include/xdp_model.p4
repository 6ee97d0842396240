// SPDX-License-Identifier: Apache-2.0
// p4bpf's own declaration of the xdp_model architecture: a switch of
// parser, control and deparser run at the kernel's XDP hook, as in the XDP
// back end of the P4 reference compiler. Written for p4bpf; names and
// signatures follow that back end so its programs compile unchanged. The
// ebpf_model filter stays available to programs that include this file.

#ifndef _P4BPF_XDP_MODEL_P4_
#define _P4BPF_XDP_MODEL_P4_

// The include-guard name other compilers use; program fragments test it
// to see whether this file was included.
#define _XDP_MODEL_P4

#include <core.p4>
#include <ebpf_model.p4>

// What XDP does with the packet once the program returns.
enum xdp_action {
    XDP_ABORTED,  // error: drop and raise a trace event
    XDP_DROP,     // drop
    XDP_PASS,     // hand to the kernel's network stack
    XDP_TX,       // send back out of the receiving interface
    XDP_REDIRECT  // send out of `output_port`
}

struct xdp_input {
    bit<32> input_port;  // ifindex the packet arrived on
}

struct xdp_output {
    xdp_action output_action;
    bit<32>    output_port;  // ifindex for XDP_REDIRECT
}

// The IPv4 header checksum of the given header fields.
extern bit<16> ebpf_ipv4_checksum(in bit<4> version, in bit<4> ihl, in bit<8> diffserv,
                                  in bit<16> totalLen, in bit<16> identification, in bit<3> flags,
                                  in bit<13> fragOffset, in bit<8> ttl, in bit<8> protocol,
                                  in bit<32> srcAddr, in bit<32> dstAddr);

// Incremental checksum update (RFC 1624): `csum` after a 16- or 32-bit
// field changed from `old` to `new`.
extern bit<16> csum_replace2(in bit<16> csum, in bit<16> old, in bit<16> new);
extern bit<16> csum_replace4(in bit<16> csum, in bit<32> old, in bit<32> new);

// Kernel helpers. BPF_PERF_EVENT_OUTPUT sends the packet to user space as
// a perf event on this CPU's ring of the map `<program>_perf_events`: a
// { u32 packet_length; u32 captured_length; } header, then the first
// captured_length bytes (at most 65535). It returns 0 when sent, else a
// negative errno as bit<32>: -ENOENT (0xfffffffe) when no reader has
// opened the ring. BPF_KTIME_GET_NS reads the monotonic clock (ns,
// truncated to 32 bits).
extern bit<32> BPF_PERF_EVENT_OUTPUT();
extern bit<32> BPF_KTIME_GET_NS();

parser xdp_parse<H>(packet_in packet, out H headers);
control xdp_switch<H>(inout H headers, in xdp_input imd, out xdp_output omd);
control xdp_deparse<H>(in H headers, packet_out packet);

package xdp<H>(xdp_parse<H> p, xdp_switch<H> s, xdp_deparse<H> d);

#endif  // _P4BPF_XDP_MODEL_P4_
