// SPDX-License-Identifier: Apache-2.0
// p4bpf's own declaration of the Portable NIC Architecture as used by the
// Linux kernel's P4TC (`#include <tc/pna.p4>`). Written for p4bpf, from
// the P4.org PNA specification and the P4TC programs' usage. Differences
// from `pna.p4`: no pre-control (the package has three blocks), the
// deparser may update headers (`inout`, e.g. to fill in checksums), the
// input metadata says `recirculated` instead of direction and pass, and
// there are extern functions for the kernel's socket-buffer metadata.

#ifndef _P4BPF_TC_PNA_P4_
#define _P4BPF_TC_PNA_P4_

// The include-guard name other compilers use; program fragments test it
// to see whether this file was included.
#define __PNA_P4__

#include <core.p4>

// ---------------------------------------------------------------------
// Target widths. The `...Uint_t` typedefs are plain bit<W> and mix freely
// with other bit<W> values; the `_t` types are distinct `type`s so the
// control plane can tell them apart, and need casts to mix.
// ---------------------------------------------------------------------

typedef bit<32> PortIdUint_t;
typedef bit<32> InterfaceIdUint_t;
typedef bit<32> MulticastGroupUint_t;
typedef bit<16> MirrorSessionIdUint_t;
typedef bit<8>  MirrorSlotIdUint_t;
typedef bit<8>  ClassOfServiceUint_t;
typedef bit<16> PacketLengthUint_t;
typedef bit<16> MulticastInstanceUint_t;
typedef bit<64> TimestampUint_t;
typedef bit<32> FlowIdUint_t;
typedef bit<8>  ExpireTimeProfileIdUint_t;
typedef bit<32> SecurityAssocIdUint_t;

@p4runtime_translation("p4.org/pna/v1/PortId_t", 32)
type PortIdUint_t              PortId_t;
@p4runtime_translation("p4.org/pna/v1/InterfaceId_t", 32)
type InterfaceIdUint_t         InterfaceId_t;
@p4runtime_translation("p4.org/pna/v1/MulticastGroup_t", 32)
type MulticastGroupUint_t      MulticastGroup_t;
@p4runtime_translation("p4.org/pna/v1/MirrorSessionId_t", 16)
type MirrorSessionIdUint_t     MirrorSessionId_t;
@p4runtime_translation("p4.org/pna/v1/MirrorSlotId_t", 8)
type MirrorSlotIdUint_t        MirrorSlotId_t;
@p4runtime_translation("p4.org/pna/v1/ClassOfService_t", 8)
type ClassOfServiceUint_t      ClassOfService_t;
@p4runtime_translation("p4.org/pna/v1/PacketLength_t", 16)
type PacketLengthUint_t        PacketLength_t;
@p4runtime_translation("p4.org/pna/v1/MulticastInstance_t", 16)
type MulticastInstanceUint_t   MulticastInstance_t;
@p4runtime_translation("p4.org/pna/v1/Timestamp_t", 64)
type TimestampUint_t           Timestamp_t;
@p4runtime_translation("p4.org/pna/v1/FlowId_t", 32)
type FlowIdUint_t              FlowId_t;
@p4runtime_translation("p4.org/pna/v1/ExpireTimeProfileId_t", 8)
type ExpireTimeProfileIdUint_t ExpireTimeProfileId_t;
@p4runtime_translation("p4.org/pna/v1/SecurityAssocId_t", 64)
type SecurityAssocIdUint_t     SecurityAssocId_t;
typedef error ParserError_t;

// Special port and session.
const InterfaceId_t PNA_PORT_CPU = (InterfaceId_t) 0xfffffffd;
const MirrorSessionId_t PNA_MIRROR_SESSION_TO_CPU = (MirrorSessionId_t) 0;

// ---------------------------------------------------------------------
// Wire forms: the same values in target-independent widths (multiples
// of 8) for headers exchanged with the controller.
// ---------------------------------------------------------------------

typedef bit<32> PortIdInHeaderUint_t;
typedef bit<32> InterfaceIdInHeaderUint_t;
typedef bit<32> MulticastGroupInHeaderUint_t;
typedef bit<16> MirrorSessionIdInHeaderUint_t;
typedef bit<8>  MirrorSlotIdInHeaderUint_t;
typedef bit<8>  ClassOfServiceInHeaderUint_t;
typedef bit<16> PacketLengthInHeaderUint_t;
typedef bit<16> MulticastInstanceInHeaderUint_t;
typedef bit<64> TimestampInHeaderUint_t;
typedef bit<32> FlowIdInHeaderUint_t;
typedef bit<8>  ExpireTimeProfileIdInHeaderUint_t;
typedef bit<32> SecurityAssocIdInHeaderUint_t;

@p4runtime_translation("p4.org/pna/v1/PortIdInHeader_t", 32)
type PortIdInHeaderUint_t              PortIdInHeader_t;
@p4runtime_translation("p4.org/pna/v1/InterfaceIdInHeader_t", 32)
type InterfaceIdInHeaderUint_t         InterfaceIdInHeader_t;
@p4runtime_translation("p4.org/pna/v1/MulticastGroupInHeader_t", 32)
type MulticastGroupInHeaderUint_t      MulticastGroupInHeader_t;
@p4runtime_translation("p4.org/pna/v1/MirrorSessionIdInHeader_t", 16)
type MirrorSessionIdInHeaderUint_t     MirrorSessionIdInHeader_t;
@p4runtime_translation("p4.org/pna/v1/MirrorSlotIdInHeader_t", 8)
type MirrorSlotIdInHeaderUint_t        MirrorSlotIdInHeader_t;
@p4runtime_translation("p4.org/pna/v1/ClassOfServiceInHeader_t", 8)
type ClassOfServiceInHeaderUint_t      ClassOfServiceInHeader_t;
@p4runtime_translation("p4.org/pna/v1/PacketLengthInHeader_t", 16)
type PacketLengthInHeaderUint_t        PacketLengthInHeader_t;
@p4runtime_translation("p4.org/pna/v1/MulticastInstanceInHeader_t", 16)
type MulticastInstanceInHeaderUint_t   MulticastInstanceInHeader_t;
@p4runtime_translation("p4.org/pna/v1/TimestampInHeader_t", 64)
type TimestampInHeaderUint_t           TimestampInHeader_t;
@p4runtime_translation("p4.org/pna/v1/FlowIdInHeader_t", 32)
type FlowIdInHeaderUint_t              FlowIdInHeader_t;
@p4runtime_translation("p4.org/pna/v1/ExpireTimeProfileIdInHeader_t", 8)
type ExpireTimeProfileIdInHeaderUint_t ExpireTimeProfileIdInHeader_t;
@p4runtime_translation("p4.org/pna/v1/SecurityAssocIdInHeader_t", 64)
type SecurityAssocIdInHeaderUint_t     SecurityAssocIdInHeader_t;

// Conversions between the two forms: unwrap the `type`, resize the bits,
// wrap again.
PortId_t pna_PortId_header_to_int(in PortIdInHeader_t x) {
    return (PortId_t) (PortIdUint_t) (PortIdInHeaderUint_t) x;
}
InterfaceId_t pna_InterfaceId_header_to_int(in InterfaceIdInHeader_t x) {
    return (InterfaceId_t) (InterfaceIdUint_t) (InterfaceIdInHeaderUint_t) x;
}
MulticastGroup_t pna_MulticastGroup_header_to_int(in MulticastGroupInHeader_t x) {
    return (MulticastGroup_t) (MulticastGroupUint_t) (MulticastGroupInHeaderUint_t) x;
}
MirrorSessionId_t pna_MirrorSessionId_header_to_int(in MirrorSessionIdInHeader_t x) {
    return (MirrorSessionId_t) (MirrorSessionIdUint_t) (MirrorSessionIdInHeaderUint_t) x;
}
ClassOfService_t pna_ClassOfService_header_to_int(in ClassOfServiceInHeader_t x) {
    return (ClassOfService_t) (ClassOfServiceUint_t) (ClassOfServiceInHeaderUint_t) x;
}
PacketLength_t pna_PacketLength_header_to_int(in PacketLengthInHeader_t x) {
    return (PacketLength_t) (PacketLengthUint_t) (PacketLengthInHeaderUint_t) x;
}
MulticastInstance_t pna_MulticastInstance_header_to_int(in MulticastInstanceInHeader_t x) {
    return (MulticastInstance_t) (MulticastInstanceUint_t) (MulticastInstanceInHeaderUint_t) x;
}
Timestamp_t pna_Timestamp_header_to_int(in TimestampInHeader_t x) {
    return (Timestamp_t) (TimestampUint_t) (TimestampInHeaderUint_t) x;
}
FlowId_t pna_FlowId_header_to_int(in FlowIdInHeader_t x) {
    return (FlowId_t) (FlowIdUint_t) (FlowIdInHeaderUint_t) x;
}
ExpireTimeProfileId_t pna_ExpireTimeProfileId_header_to_int(in ExpireTimeProfileIdInHeader_t x) {
    return (ExpireTimeProfileId_t) (ExpireTimeProfileIdUint_t) (ExpireTimeProfileIdInHeaderUint_t) x;
}

PortIdInHeader_t pna_PortId_int_to_header(in PortId_t x) {
    return (PortIdInHeader_t) (PortIdInHeaderUint_t) (PortIdUint_t) x;
}
InterfaceIdInHeader_t pna_InterfaceId_int_to_header(in InterfaceId_t x) {
    return (InterfaceIdInHeader_t) (InterfaceIdInHeaderUint_t) (InterfaceIdUint_t) x;
}
MulticastGroupInHeader_t pna_MulticastGroup_int_to_header(in MulticastGroup_t x) {
    return (MulticastGroupInHeader_t) (MulticastGroupInHeaderUint_t) (MulticastGroupUint_t) x;
}
MirrorSessionIdInHeader_t pna_MirrorSessionId_int_to_header(in MirrorSessionId_t x) {
    return (MirrorSessionIdInHeader_t) (MirrorSessionIdInHeaderUint_t) (MirrorSessionIdUint_t) x;
}
ClassOfServiceInHeader_t pna_ClassOfService_int_to_header(in ClassOfService_t x) {
    return (ClassOfServiceInHeader_t) (ClassOfServiceInHeaderUint_t) (ClassOfServiceUint_t) x;
}
PacketLengthInHeader_t pna_PacketLength_int_to_header(in PacketLength_t x) {
    return (PacketLengthInHeader_t) (PacketLengthInHeaderUint_t) (PacketLengthUint_t) x;
}
MulticastInstanceInHeader_t pna_MulticastInstance_int_to_header(in MulticastInstance_t x) {
    return (MulticastInstanceInHeader_t) (MulticastInstanceInHeaderUint_t) (MulticastInstanceUint_t) x;
}
TimestampInHeader_t pna_Timestamp_int_to_header(in Timestamp_t x) {
    return (TimestampInHeader_t) (TimestampInHeaderUint_t) (TimestampUint_t) x;
}
FlowIdInHeader_t pna_FlowId_int_to_header(in FlowId_t x) {
    return (FlowIdInHeader_t) (FlowIdInHeaderUint_t) (FlowIdUint_t) x;
}
ExpireTimeProfileIdInHeader_t pna_ExpireTimeProfileId_int_to_header(in ExpireTimeProfileId_t x) {
    return (ExpireTimeProfileIdInHeader_t) (ExpireTimeProfileIdInHeaderUint_t) (ExpireTimeProfileIdUint_t) x;
}

// Values of the `pna_idle_timeout` table property.
enum PNA_IdleTimeout_t {
    NO_TIMEOUT,
    NOTIFY_CONTROL,
    AUTO_DELETE
}

match_kind {
    range,     // lo..hi intervals
    selector,  // picks a member of an ActionSelector group
    optional   // exact value or wildcard
}

// ---------------------------------------------------------------------
// Externs.
// ---------------------------------------------------------------------

enum PNA_HashAlgorithm_t {
    IDENTITY,
    CRC32,
    CRC32_CUSTOM,
    CRC16,
    CRC16_CUSTOM,
    ONES_COMPLEMENT16,  // the IPv4/TCP/UDP checksum sum
    TARGET_DEFAULT      // whatever the target prefers
}

extern Hash<O> {
    Hash(PNA_HashAlgorithm_t algo);
    // The hash of `data`.
    @pure
    O get_hash<D>(in D data);
    // base + (hash of `data`) % max.
    @pure
    O get_hash<T, D>(in T base, in D data, in T max);
}

// A checksum accumulated over several updates.
extern Checksum<W> {
    Checksum(PNA_HashAlgorithm_t hash);
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

enum PNA_CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

// `n_counters` counters of width W (data plane), indexed by S.
@noWarn("unused")
extern Counter<W, S> {
    Counter(bit<32> n_counters, PNA_CounterType_t type);
    void count(in S index);
}

// One counter per entry of the table that owns it.
@noWarn("unused")
extern DirectCounter<W> {
    DirectCounter(PNA_CounterType_t type);
    void count();
}

enum PNA_MeterType_t {
    PACKETS,
    BYTES
}

enum PNA_MeterColor_t { RED, GREEN, YELLOW }

// `n_meters` two-rate three-colour meters (RFC 2698), indexed by S.
extern Meter<S> {
    Meter(bit<32> n_meters, PNA_MeterType_t type);
    // Colour-aware: `color` is the packet's colour so far.
    PNA_MeterColor_t execute(in S index, in PNA_MeterColor_t color);
    // Colour-blind: as if the packet were GREEN.
    PNA_MeterColor_t execute(in S index);
}

// One meter per entry of the table that owns it.
extern DirectMeter {
    DirectMeter(PNA_MeterType_t type);
    PNA_MeterColor_t execute(in PNA_MeterColor_t color);
    PNA_MeterColor_t execute();
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
    ActionSelector(PNA_HashAlgorithm_t algo, bit<32> size, bit<32> outputWidth);
}

// A stream of messages to the control plane.
extern Digest<T> {
    Digest();
    void pack(in T data);
}

// ---------------------------------------------------------------------
// Metadata exchanged with the architecture.
// ---------------------------------------------------------------------

enum PNA_Source_t {
    FROM_HOST,
    FROM_NET
}

struct pna_main_parser_input_metadata_t {
    bool     recirculated;
    PortId_t input_port;  // network port, or vport for host packets
}

// True for host-side (virtual) ports and for network ports respectively.
extern bool is_host_port(in PortId_t p);
extern bool is_net_port(in PortId_t p);

struct pna_main_input_metadata_t {
    bool             recirculated;
    Timestamp_t      timestamp;
    ParserError_t    parser_error;
    ClassOfService_t class_of_service;
    PortId_t         input_port;
}

struct pna_main_output_metadata_t {
    ClassOfService_t class_of_service;  // 0
}

// ---------------------------------------------------------------------
// Extern functions of the main control.
// ---------------------------------------------------------------------

// Where the packet goes: the last of these calls wins.
extern void drop_packet();
extern void send_to_port(in PortId_t dest_port);

// Sends a copy to `mirror_session_id`; each slot holds one mirror request.
extern void mirror_packet(in MirrorSlotId_t mirror_slot_id,
                          in MirrorSessionId_t mirror_session_id);

// Result of add_entry: 0 is success; targets may define other failures.
typedef bit<1> AddEntryErrorStatus_t;
const AddEntryErrorStatus_t ADD_ENTRY_SUCCESS = 0;
const AddEntryErrorStatus_t ADD_ENTRY_NOT_DONE = 1;

// In the default action of an `add_on_miss` table: adds an entry for the
// key that just missed, running `action_name` with `action_params` (a
// struct or list matching that action's parameters).
extern AddEntryErrorStatus_t add_entry<T>(string action_name,
                                          in T action_params,
                                          in ExpireTimeProfileId_t expire_time_profile_id);
// The same when `do_add_entry` holds; ADD_ENTRY_NOT_DONE otherwise.
extern AddEntryErrorStatus_t add_entry_if<T>(in bool do_add_entry,
                                             string action_name,
                                             in T action_params,
                                             in ExpireTimeProfileId_t expire_time_profile_id);

// A fresh flow id.
extern FlowId_t allocate_flow_id();

// In an action of a table with idle timeouts: gives the matched entry a
// new expire-time profile (and restarts its timer) ...
extern void set_entry_expire_time(in ExpireTimeProfileId_t expire_time_profile_id);
// ... only when `condition` holds ...
extern void set_entry_expire_time_if(in bool condition,
                                     in ExpireTimeProfileId_t expire_time_profile_id);
// ... or only restarts its timer.
extern void restart_expire_timer();
// Nothing unless `update_aging_info`; then set_entry_expire_time when
// `update_expire_time`, else restart_expire_timer.
extern void update_expire_info(in bool update_aging_info,
                               in bool update_expire_time,
                               in ExpireTimeProfileId_t expire_time_profile_id);

// `from_net_value` when `is_network_port`, else `from_host_value`; an
// extern so back ends see it (e.g. in table keys) and can specialise it.
@pure
extern T SelectByDirection<T>(in bool is_network_port,
                              in T from_net_value,
                              in T from_host_value);

// The kernel socket buffer's own metadata. skb_get_meta loads it for the
// getters below; the setters stage changes that skb_set_meta writes back.
extern void skb_get_meta();
extern void skb_set_meta();
extern bit<64> skb_get_tstamp();
extern bit<32> skb_get_mark();
extern bit<16> skb_get_tc_classid();
extern bit<16> skb_get_tc_index();
extern bit<16> skb_get_queue_mapping();
extern bit<16> skb_get_protocol();
extern bit<1>  skb_get_tc_at_ingress();
extern bit<1>  skb_get_from_ingress();
extern void skb_set_tstamp(in bit<64> tstamp);
extern void skb_set_mark(in bit<32> mark);
extern void skb_set_tc_classid(in bit<16> tc_classid);
extern void skb_set_tc_index(in bit<16> tc_index);
extern void skb_set_queue_mapping(in bit<16> queue_mapping);
extern void skb_set_protocol(in bit<16> protocol);

// ---------------------------------------------------------------------
// The blocks a P4TC program supplies, and how they fit together.
// ---------------------------------------------------------------------

parser MainParserT<MH, MM>(
    packet_in pkt,
    out   MH main_hdr,
    inout MM main_user_meta,
    in    pna_main_parser_input_metadata_t istd);

control MainControlT<MH, MM>(
    inout MH main_hdr,
    inout MM main_user_meta,
    in    pna_main_input_metadata_t  istd,
    inout pna_main_output_metadata_t ostd);

control MainDeparserT<MH, MM>(
    packet_out pkt,
    inout MH main_hdr,
    in    MM main_user_meta,
    in    pna_main_output_metadata_t ostd);

package PNA_NIC<MH, MM>(
    MainParserT<MH, MM> main_parser,
    MainControlT<MH, MM> main_control,
    MainDeparserT<MH, MM> main_deparser);

#endif  // _P4BPF_TC_PNA_P4_
