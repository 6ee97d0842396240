// SPDX-License-Identifier: Apache-2.0
// p4bpf's own declaration of the v1model architecture (the P4_14 switch
// model carried over to P4_16, as run by the BMv2 simple_switch). Written
// for p4bpf; names and signatures follow the published architecture so
// existing v1model programs compile unchanged.
//
// A program may `#define V1MODEL_VERSION` before including this file to
// choose a revision of the interface:
//   20180101  (default) ports are bit<9>, indexes are bit<32>;
//   20200408  ports are PortId_t, counters, meters and registers take the
//             index type as a type parameter.

#ifndef _P4BPF_V1MODEL_P4_
#define _P4BPF_V1MODEL_P4_

// The include-guard name other compilers use; program fragments test it
// to see whether this file was included.
#define _V1_MODEL_P4_

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

#if V1MODEL_VERSION != 20180101 && V1MODEL_VERSION != 20200408
#error "unsupported V1MODEL_VERSION: use 20180101 or 20200408"
#endif

#include <core.p4>

// The chosen revision, visible to the program and to back ends.
const bit<32> __v1model_version = V1MODEL_VERSION;

match_kind {
    range,     // lo..hi intervals
    optional,  // exact value or wildcard
    selector   // picks a member of an action_selector group
}

#if V1MODEL_VERSION >= 20200408
typedef bit<9> PortId_t;
#endif

// Per-packet data the switch fills in and reads back.
@metadata @name("standard_metadata")
struct standard_metadata_t {
#if V1MODEL_VERSION >= 20200408
    PortId_t ingress_port;
    PortId_t egress_spec;   // set by ingress: where the packet should go
    PortId_t egress_port;   // in egress: where it is going
#else
    bit<9>  ingress_port;
    bit<9>  egress_spec;
    bit<9>  egress_port;
#endif
    bit<32> instance_type;  // normal, clone, resubmit, recirculate...
    bit<32> packet_length;
    // Queueing data, valid in egress.
    @alias("queueing_metadata.enq_timestamp") bit<32> enq_timestamp;
    @alias("queueing_metadata.enq_qdepth")    bit<19> enq_qdepth;
    @alias("queueing_metadata.deq_timedelta") bit<32> deq_timedelta;
    @alias("queueing_metadata.deq_qdepth")    bit<19> deq_qdepth;
    // Timestamps in microseconds.
    @alias("intrinsic_metadata.ingress_global_timestamp") bit<48> ingress_global_timestamp;
    @alias("intrinsic_metadata.egress_global_timestamp")  bit<48> egress_global_timestamp;
    @alias("intrinsic_metadata.mcast_grp")  bit<16> mcast_grp;   // multicast group, 0 = none
    @alias("intrinsic_metadata.egress_rid") bit<16> egress_rid;  // replica id in egress
    bit<1>  checksum_error;  // 1 when a verify_checksum call failed
    error   parser_error;    // the error the parser ended with
    @alias("intrinsic_metadata.priority") bit<3> priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

// An array of `size` counters indexed by the program.
#if V1MODEL_VERSION >= 20200408
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}
#endif

// One counter per entry of the table that owns it.
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

// Meter colours as execute_meter / direct_meter.read write them.
#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

// An array of `size` two-rate three-colour meters.
#if V1MODEL_VERSION >= 20200408
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

// One meter per entry of the table that owns it.
extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

// An array of `size` values of type T kept across packets.
#if V1MODEL_VERSION >= 20200408
extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}
#endif

// Table implementation sharing action data among entries.
extern action_profile {
    action_profile(bit<32> size);
}

// A random value in lo..hi (both included).
extern void random<T>(out T result, in T lo, in T hi);

// Sends `data` to the control plane; `receiver` is kept for compatibility.
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

@deprecated("use mark_to_drop(standard_metadata) instead")
extern void mark_to_drop();
// Makes the packet be dropped at the end of the current pipeline.
@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

// result = base + (hash of data) % max.
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

// Table implementation picking a member by hashing `selector` key fields.
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum CloneType {
    I2E,  // ingress to egress
    E2E   // egress to egress
}

@deprecated("use verify_checksum/update_checksum instead")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

// In the checksum-verify control: when `condition` holds and the checksum
// of `data` differs from `checksum`, sets standard_metadata.checksum_error.
// `data` is a list of bit fields; `algo` must be a constant.
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
// In the checksum-update control: when `condition` holds, sets `checksum`
// to the checksum of `data`.
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);
// As above, with the unparsed payload appended to `data`.
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

// Copies the packet to the clone session `session`.
extern void clone(in CloneType type, in bit<32> session);

// Resubmit, recirculate and clone keeping the user metadata fields marked
// `@field_list(index)`.
@deprecated("use resubmit_preserving_field_list instead")
extern void resubmit<T>(in T data);
extern void resubmit_preserving_field_list(bit<8> index);

@deprecated("use recirculate_preserving_field_list instead")
extern void recirculate<T>(in T data);
extern void recirculate_preserving_field_list(bit<8> index);

@deprecated("use clone_preserving_field_list instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

// Keeps only the first `length` bytes of the outgoing packet.
extern void truncate(in bit<32> length);

// Run-time checks, for testing: a false `check` is reported (assert) or
// taken as impossible (assume).
extern void assert(in bool check);
extern void assume(in bool check);

// Writes a message to the switch log; `{}` in `msg` is replaced by the
// fields of `data` in turn.
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

// The blocks a v1model program supplies.
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

// Only calls to verify_checksum / verify_checksum_with_payload belong here.
control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

// Only calls to update_checksum / update_checksum_with_payload belong here.
control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif  // _P4BPF_V1MODEL_P4_
