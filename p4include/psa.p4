// SPDX-License-Identifier: Apache-2.0
// p4bpf's own declaration of the Portable Switch Architecture (PSA), from
// the P4.org PSA specification. Written for p4bpf; names and signatures
// follow the specification so PSA programs compile unchanged. The same file
// serves `psa.p4`, `bmv2/psa.p4` and `dpdk/psa.p4`: where those targets add
// methods (the packet-length overloads of DPDK counters and meters), they
// are declared here too.

#ifndef _P4BPF_PSA_P4_
#define _P4BPF_PSA_P4_

// The include-guard names other compilers use; program fragments test
// them to see whether this file was included.
#define __PSA_P4__
#define _PORTABLE_SWITCH_ARCHITECTURE_P4_

#include <core.p4>

// ---------------------------------------------------------------------
// Target widths. The `...Uint_t` typedefs are plain bit<W> and mix freely
// with other bit<W> values; the `_t` types are distinct `type`s so the
// control plane can tell them apart, and need casts to mix.
// ---------------------------------------------------------------------

typedef bit<32> PortIdUint_t;
typedef bit<32> MulticastGroupUint_t;
typedef bit<16> CloneSessionIdUint_t;
typedef bit<8>  ClassOfServiceUint_t;
typedef bit<16> PacketLengthUint_t;
typedef bit<16> EgressInstanceUint_t;
typedef bit<64> TimestampUint_t;

@p4runtime_translation("p4.org/psa/v1/PortId_t", 32)
type PortIdUint_t         PortId_t;
@p4runtime_translation("p4.org/psa/v1/MulticastGroup_t", 32)
type MulticastGroupUint_t MulticastGroup_t;
@p4runtime_translation("p4.org/psa/v1/CloneSessionId_t", 16)
type CloneSessionIdUint_t CloneSessionId_t;
@p4runtime_translation("p4.org/psa/v1/ClassOfService_t", 8)
type ClassOfServiceUint_t ClassOfService_t;
@p4runtime_translation("p4.org/psa/v1/PacketLength_t", 16)
type PacketLengthUint_t   PacketLength_t;
@p4runtime_translation("p4.org/psa/v1/EgressInstance_t", 16)
type EgressInstanceUint_t EgressInstance_t;
@p4runtime_translation("p4.org/psa/v1/Timestamp_t", 64)
type TimestampUint_t      Timestamp_t;
typedef error ParserError_t;

// Special ports and sessions.
const PortId_t PSA_PORT_RECIRCULATE = (PortId_t) 0xfffffffa;
const PortId_t PSA_PORT_CPU = (PortId_t) 0xfffffffd;
const CloneSessionId_t PSA_CLONE_SESSION_TO_CPU = (CloneSessionId_t) 0;

// ---------------------------------------------------------------------
// Wire forms: the same values in target-independent widths (multiples
// of 8) for headers exchanged with the controller.
// ---------------------------------------------------------------------

typedef bit<32> PortIdInHeaderUint_t;
typedef bit<32> MulticastGroupInHeaderUint_t;
typedef bit<16> CloneSessionIdInHeaderUint_t;
typedef bit<8>  ClassOfServiceInHeaderUint_t;
typedef bit<16> PacketLengthInHeaderUint_t;
typedef bit<16> EgressInstanceInHeaderUint_t;
typedef bit<64> TimestampInHeaderUint_t;

@p4runtime_translation("p4.org/psa/v1/PortIdInHeader_t", 32)
type PortIdInHeaderUint_t         PortIdInHeader_t;
@p4runtime_translation("p4.org/psa/v1/MulticastGroupInHeader_t", 32)
type MulticastGroupInHeaderUint_t MulticastGroupInHeader_t;
@p4runtime_translation("p4.org/psa/v1/CloneSessionIdInHeader_t", 16)
type CloneSessionIdInHeaderUint_t CloneSessionIdInHeader_t;
@p4runtime_translation("p4.org/psa/v1/ClassOfServiceInHeader_t", 8)
type ClassOfServiceInHeaderUint_t ClassOfServiceInHeader_t;
@p4runtime_translation("p4.org/psa/v1/PacketLengthInHeader_t", 16)
type PacketLengthInHeaderUint_t   PacketLengthInHeader_t;
@p4runtime_translation("p4.org/psa/v1/EgressInstanceInHeader_t", 16)
type EgressInstanceInHeaderUint_t EgressInstanceInHeader_t;
@p4runtime_translation("p4.org/psa/v1/TimestampInHeader_t", 64)
type TimestampInHeaderUint_t      TimestampInHeader_t;

// Conversions between the two forms: unwrap the `type`, resize the bits,
// wrap again.
PortId_t psa_PortId_header_to_int(in PortIdInHeader_t x) {
    return (PortId_t) (PortIdUint_t) (PortIdInHeaderUint_t) x;
}
MulticastGroup_t psa_MulticastGroup_header_to_int(in MulticastGroupInHeader_t x) {
    return (MulticastGroup_t) (MulticastGroupUint_t) (MulticastGroupInHeaderUint_t) x;
}
CloneSessionId_t psa_CloneSessionId_header_to_int(in CloneSessionIdInHeader_t x) {
    return (CloneSessionId_t) (CloneSessionIdUint_t) (CloneSessionIdInHeaderUint_t) x;
}
ClassOfService_t psa_ClassOfService_header_to_int(in ClassOfServiceInHeader_t x) {
    return (ClassOfService_t) (ClassOfServiceUint_t) (ClassOfServiceInHeaderUint_t) x;
}
PacketLength_t psa_PacketLength_header_to_int(in PacketLengthInHeader_t x) {
    return (PacketLength_t) (PacketLengthUint_t) (PacketLengthInHeaderUint_t) x;
}
EgressInstance_t psa_EgressInstance_header_to_int(in EgressInstanceInHeader_t x) {
    return (EgressInstance_t) (EgressInstanceUint_t) (EgressInstanceInHeaderUint_t) x;
}
Timestamp_t psa_Timestamp_header_to_int(in TimestampInHeader_t x) {
    return (Timestamp_t) (TimestampUint_t) (TimestampInHeaderUint_t) x;
}

PortIdInHeader_t psa_PortId_int_to_header(in PortId_t x) {
    return (PortIdInHeader_t) (PortIdInHeaderUint_t) (PortIdUint_t) x;
}
MulticastGroupInHeader_t psa_MulticastGroup_int_to_header(in MulticastGroup_t x) {
    return (MulticastGroupInHeader_t) (MulticastGroupInHeaderUint_t) (MulticastGroupUint_t) x;
}
CloneSessionIdInHeader_t psa_CloneSessionId_int_to_header(in CloneSessionId_t x) {
    return (CloneSessionIdInHeader_t) (CloneSessionIdInHeaderUint_t) (CloneSessionIdUint_t) x;
}
ClassOfServiceInHeader_t psa_ClassOfService_int_to_header(in ClassOfService_t x) {
    return (ClassOfServiceInHeader_t) (ClassOfServiceInHeaderUint_t) (ClassOfServiceUint_t) x;
}
PacketLengthInHeader_t psa_PacketLength_int_to_header(in PacketLength_t x) {
    return (PacketLengthInHeader_t) (PacketLengthInHeaderUint_t) (PacketLengthUint_t) x;
}
EgressInstanceInHeader_t psa_EgressInstance_int_to_header(in EgressInstance_t x) {
    return (EgressInstanceInHeader_t) (EgressInstanceInHeaderUint_t) (EgressInstanceUint_t) x;
}
TimestampInHeader_t psa_Timestamp_int_to_header(in Timestamp_t x) {
    return (TimestampInHeader_t) (TimestampInHeaderUint_t) (TimestampUint_t) x;
}

// Values of the `psa_idle_timeout` table property.
enum PSA_IdleTimeout_t {
    NO_TIMEOUT,
    NOTIFY_CONTROL
}

// ---------------------------------------------------------------------
// Metadata exchanged with the architecture.
// ---------------------------------------------------------------------

// How a packet reached the block that sees it.
enum PSA_PacketPath_t {
    NORMAL,            // ingress: arrived from a port
    NORMAL_UNICAST,    // egress: sent by ingress to one port
    NORMAL_MULTICAST,  // egress: a copy made by a multicast group
    CLONE_I2E,         // egress: clone made in ingress
    CLONE_E2E,         // egress: clone made in egress
    RESUBMIT,          // ingress: resubmitted by the ingress deparser
    RECIRCULATE        // ingress: recirculated by the egress deparser
}

struct psa_ingress_parser_input_metadata_t {
    PortId_t         ingress_port;
    PSA_PacketPath_t packet_path;
}

struct psa_egress_parser_input_metadata_t {
    PortId_t         egress_port;
    PSA_PacketPath_t packet_path;
}

// Set by the architecture before Ingress runs.
struct psa_ingress_input_metadata_t {
    PortId_t         ingress_port;
    PSA_PacketPath_t packet_path;
    Timestamp_t      ingress_timestamp;
    ParserError_t    parser_error;
}

// Ingress's decisions; initial values in comments.
struct psa_ingress_output_metadata_t {
    ClassOfService_t class_of_service;  // 0
    bool             clone;             // false
    CloneSessionId_t clone_session_id;  // undefined
    bool             drop;              // true
    bool             resubmit;          // false
    MulticastGroup_t multicast_group;   // 0
    PortId_t         egress_port;       // undefined
}

// Set by the architecture before Egress runs.
struct psa_egress_input_metadata_t {
    ClassOfService_t class_of_service;
    PortId_t         egress_port;
    PSA_PacketPath_t packet_path;
    EgressInstance_t instance;          // replica number from the PRE
    Timestamp_t      egress_timestamp;
    ParserError_t    parser_error;
}

// Lets the egress deparser see whether the packet will recirculate.
struct psa_egress_deparser_input_metadata_t {
    PortId_t egress_port;
}

// Egress's decisions; initial values in comments.
struct psa_egress_output_metadata_t {
    bool             clone;             // false
    CloneSessionId_t clone_session_id;  // undefined
    bool             drop;              // false
}

// In the deparsers: which copies of the packet will be made. Assignments
// to the matching deparser `out` parameter belong under these tests.
// Defined here as psa.p4's reference comments define them, so that every
// target computes them alike.
bool psa_clone_i2e(in psa_ingress_output_metadata_t istd) {
    return istd.clone;
}
bool psa_resubmit(in psa_ingress_output_metadata_t istd) {
    return !istd.drop && istd.resubmit;
}
bool psa_normal(in psa_ingress_output_metadata_t istd) {
    return !istd.drop && !istd.resubmit;
}
bool psa_clone_e2e(in psa_egress_output_metadata_t istd) {
    return istd.clone;
}
bool psa_recirculate(in psa_egress_output_metadata_t istd,
                     in psa_egress_deparser_input_metadata_t edstd) {
    return !istd.drop && edstd.egress_port == PSA_PORT_RECIRCULATE;
}

// Run-time checks: a false `check` is reported (assert) or taken as
// impossible by verification tools (assume).
extern void assert(in bool check);
extern void assume(in bool check);

match_kind {
    range,     // lo..hi intervals
    selector,  // picks a member of an ActionSelector group
    optional   // exact value or wildcard
}

// ---------------------------------------------------------------------
// Forwarding actions.
// ---------------------------------------------------------------------

// Unicast to `egress_port` (keeps any clone/resubmit request).
@noWarn("unused")
action send_to_port(inout psa_ingress_output_metadata_t meta,
                    in PortId_t egress_port) {
    meta.drop = false;
    meta.multicast_group = (MulticastGroup_t) 0;
    meta.egress_port = egress_port;
}

// Replicate to the ports of `multicast_group`.
@noWarn("unused")
action multicast(inout psa_ingress_output_metadata_t meta,
                 in MulticastGroup_t multicast_group) {
    meta.drop = false;
    meta.multicast_group = multicast_group;
}

// No normal copy goes to egress (a clone may still be made).
@noWarn("unused")
action ingress_drop(inout psa_ingress_output_metadata_t meta) {
    meta.drop = true;
}

// The packet does not leave the device (a clone may still be made).
@noWarn("unused")
action egress_drop(inout psa_egress_output_metadata_t meta) {
    meta.drop = true;
}

// Fixed-function blocks: no data-plane methods, but named instances the
// control plane configures (multicast groups, clone sessions, queues).
extern PacketReplicationEngine {
    PacketReplicationEngine();
}

extern BufferingQueueingEngine {
    BufferingQueueingEngine();
}

// ---------------------------------------------------------------------
// Externs.
// ---------------------------------------------------------------------

enum PSA_HashAlgorithm_t {
    IDENTITY,
    CRC32,
    CRC32_CUSTOM,
    CRC16,
    CRC16_CUSTOM,
    ONES_COMPLEMENT16,  // the IPv4/TCP/UDP checksum sum
    TARGET_DEFAULT      // whatever the target prefers
}

extern Hash<O> {
    Hash(PSA_HashAlgorithm_t algo);
    // The hash of `data`.
    @pure
    O get_hash<D>(in D data);
    // base + (hash of `data`) % max.
    @pure
    O get_hash<T, D>(in T base, in D data, in T max);
}

// A checksum accumulated over several updates.
extern Checksum<W> {
    Checksum(PSA_HashAlgorithm_t hash);
    void clear();
    void update<T>(in T data);
    @noSideEffects
    W get();
}

// The one's complement sum of RFC 1071, updatable incrementally (RFC 1624).
extern InternetChecksum {
    InternetChecksum();
    void clear();
    // `data` must be a multiple of 16 bits long.
    void add<T>(in T data);
    void subtract<T>(in T data);
    @noSideEffects
    bit<16> get();
    // The running state, to carry the sum to another instance.
    @noSideEffects
    bit<16> get_state();
    void set_state(in bit<16> checksum_state);
}

enum PSA_CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

// `n_counters` counters of width W (data plane), indexed by S.
@noWarn("unused")
extern Counter<W, S> {
    Counter(bit<32> n_counters, PSA_CounterType_t type);
    void count(in S index);
    // Byte counting with an explicit packet length (DPDK).
    void count(in S index, in bit<32> pkt_len);
}

// One counter per entry of the table that owns it.
@noWarn("unused")
extern DirectCounter<W> {
    DirectCounter(PSA_CounterType_t type);
    void count();
    void count(in bit<32> pkt_len);
}

enum PSA_MeterType_t {
    PACKETS,
    BYTES
}

enum PSA_MeterColor_t { RED, GREEN, YELLOW }

// `n_meters` two-rate three-colour meters (RFC 2698), indexed by S.
extern Meter<S> {
    Meter(bit<32> n_meters, PSA_MeterType_t type);
    // Colour-aware: `color` is the packet's colour so far.
    PSA_MeterColor_t execute(in S index, in PSA_MeterColor_t color);
    // Colour-blind: as if the packet were GREEN.
    PSA_MeterColor_t execute(in S index);
    // With an explicit packet length (DPDK).
    PSA_MeterColor_t dpdk_execute(in S index, in PSA_MeterColor_t color, in bit<32> pkt_len);
    PSA_MeterColor_t dpdk_execute(in S index, in bit<32> pkt_len);
}

// One meter per entry of the table that owns it.
extern DirectMeter {
    DirectMeter(PSA_MeterType_t type);
    PSA_MeterColor_t execute(in PSA_MeterColor_t color);
    PSA_MeterColor_t execute();
    PSA_MeterColor_t dpdk_execute(in PSA_MeterColor_t color, in bit<32> pkt_len);
    PSA_MeterColor_t dpdk_execute(in bit<32> pkt_len);
}

// `size` values of type T kept across packets, indexed by S.
extern Register<T, S> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    @noSideEffects
    T read(in S index);
    void write(in S index, in T value);
}

// Random values in min..max (both included).
extern Random<T> {
    Random(T min, T max);
    T read();
}

// Table implementation sharing action data among entries.
extern ActionProfile {
    ActionProfile(bit<32> size);
}

// Table implementation picking a group member by hashing the `selector`
// key fields into `outputWidth` bits.
extern ActionSelector {
    ActionSelector(PSA_HashAlgorithm_t algo, bit<32> size, bit<32> outputWidth);
}

// A stream of messages to the control plane.
extern Digest<T> {
    Digest();
    void pack(in T data);
}

// ---------------------------------------------------------------------
// The blocks a PSA program supplies, and how they fit together.
// ---------------------------------------------------------------------

parser IngressParser<H, M, RESUBM, RECIRCM>(
    packet_in buffer,
    out H parsed_hdr,
    inout M user_meta,
    in psa_ingress_parser_input_metadata_t istd,
    in RESUBM resubmit_meta,
    in RECIRCM recirculate_meta);

control Ingress<H, M>(
    inout H hdr, inout M user_meta,
    in    psa_ingress_input_metadata_t  istd,
    inout psa_ingress_output_metadata_t ostd);

control IngressDeparser<H, M, CI2EM, RESUBM, NM>(
    packet_out buffer,
    out CI2EM clone_i2e_meta,
    out RESUBM resubmit_meta,
    out NM normal_meta,
    inout H hdr,
    in M meta,
    in psa_ingress_output_metadata_t istd);

parser EgressParser<H, M, NM, CI2EM, CE2EM>(
    packet_in buffer,
    out H parsed_hdr,
    inout M user_meta,
    in psa_egress_parser_input_metadata_t istd,
    in NM normal_meta,
    in CI2EM clone_i2e_meta,
    in CE2EM clone_e2e_meta);

control Egress<H, M>(
    inout H hdr, inout M user_meta,
    in    psa_egress_input_metadata_t  istd,
    inout psa_egress_output_metadata_t ostd);

control EgressDeparser<H, M, CE2EM, RECIRCM>(
    packet_out buffer,
    out CE2EM clone_e2e_meta,
    out RECIRCM recirculate_meta,
    inout H hdr,
    in M meta,
    in psa_egress_output_metadata_t istd,
    in psa_egress_deparser_input_metadata_t edstd);

package IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM>(
    IngressParser<IH, IM, RESUBM, RECIRCM> ip,
    Ingress<IH, IM> ig,
    IngressDeparser<IH, IM, CI2EM, RESUBM, NM> id);

package EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM>(
    EgressParser<EH, EM, NM, CI2EM, CE2EM> ep,
    Egress<EH, EM> eg,
    EgressDeparser<EH, EM, CE2EM, RECIRCM> ed);

package PSA_Switch<IH, IM, EH, EM, NM, CI2EM, CE2EM, RESUBM, RECIRCM>(
    IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM> ingress,
    PacketReplicationEngine pre,
    EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM> egress,
    BufferingQueueingEngine bqe);

#endif  // _P4BPF_PSA_P4_
