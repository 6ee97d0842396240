//! The benchmark cases: the six programs of the p4c-xdp study and the
//! second family (the same work written as users write P4: one shared
//! parser and one deparser emitting every header), each with its
//! hand-written twin (same file stem under `c/`), the two empty floors,
//! and the entries each needs so the packet takes the path timed.

use super::fill::{P4Entry, RawEntries};
use p4bpf_compiler::Hook;
use p4bpf_runtime::bench::packet;

/// How a case is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Plain `BPF_PROG_TEST_RUN` repeats on one buffer.
    Plain,
    /// Live frames: the program grows the packet or must really transmit.
    Live,
}

/// Which table of RESULTS.md a case belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// The p4c-xdp study's six: each parser extracts what its deparser emits.
    Study,
    /// `p4/shared.p4`'s parser and deparser under each program's control.
    Shared,
    /// Routed live frames (packets per second).
    Routed,
    /// PSA programs of the shared corpus at TC.
    Psa,
}

pub struct Case {
    /// File stem of `p4/NAME.p4` and `c/NAME.c`; the programs are
    /// `NAME_xdp` in both objects.
    pub name: &'static str,
    pub what: &'static str,
    pub mode: Mode,
    pub family: Family,
    pub p4_entries: Vec<P4Entry>,
    pub twin_entries: Vec<RawEntries>,
    /// The packet timed (the 64-byte UDP packet unless said otherwise).
    pub packet: Vec<u8>,
    /// The P4 port routed entries name, when it is not the veth's ifindex
    /// (v1model ports have 9 bits); the ports map sends it to the veth.
    pub p4_port: Option<u32>,
    /// Where both programs run; the twin's program is `NAME_xdp` or `NAME_tc`.
    pub hook: Hook,
    /// The P4 program's path in the shared corpus (`../shared/corpus/p4c`)
    /// when it is not `p4/NAME.p4`: read at run time, never copied here.
    pub corpus: Option<&'static str>,
    /// More entries of the P4 program's port map (P4 port, ifindex).
    pub p4_ports: Vec<(u32, u32)>,
    /// The verdict both programs must return, so a figure never times a
    /// path other than the one the case names.
    pub verdict: Option<u32>,
}

/// The floors: hand-written programs with nothing in them (`c/NAME.c`).
pub const FLOORS: [(&str, &str); 2] = [("drop", "return XDP_DROP"), ("tx", "return XDP_TX")];

/// The TTL the exact-match case writes.
const NEW_TTL: u8 = 63;

/// The cases; `port` is the interface routed packets leave by (the live
/// veth, or 0 without one).
pub fn cases(port: u32) -> Vec<Case> {
    let dst = packet::DST_IP;
    let dst_text = format!("{}.{}.{}.{}", dst[0], dst[1], dst[2], dst[3]);
    let mut cases = vec![
        case("parse_drop", "parse Ethernet+IPv4, drop", Mode::Plain),
        case(
            "exact_miss",
            "exact lookup of dst MAC (miss), drop",
            Mode::Plain,
        ),
        Case {
            p4_entries: vec![P4Entry::new(
                "SetTtl.ttl_by_dst",
                &[&dst_text],
                "set_ttl",
                &[&NEW_TTL.to_string()],
            )],
            twin_entries: vec![RawEntries::one("ttl_by_dst", &dst, &[NEW_TTL])],
            ..case(
                "exact_ttl",
                "exact lookup (hit) gives TTL, write it, drop",
                Mode::Plain,
            )
        },
        case(
            "udp_rewrite",
            "write UDP src port + IPv4 src, both checksums, drop",
            Mode::Plain,
        ),
        case("mac_swap", "swap MACs, XDP_TX", Mode::Plain),
        case(
            "push_header",
            "insert 8-byte header after Ethernet, XDP_TX",
            Mode::Live,
        ),
        routed(
            "l3_fwd",
            "LPM route, MACs, TTL-1 + checksum, XDP_REDIRECT",
            port,
            None,
        ),
        routed(
            "v1model_l3_fwd",
            "v1model router: LPM, MACs, TTL-1, checksum recomputed",
            port,
            Some(V1MODEL_PORT),
        ),
    ];
    cases.extend(shared_cases(&dst_text));
    cases.push(super::psa_suite::l2l3_acl_bridged());
    cases
}

/// The second family: `p4/shared_NAME.p4` and `c/shared_NAME.c`.
fn shared_cases(dst_text: &str) -> Vec<Case> {
    let shared = |name, what, mode| Case {
        family: Family::Shared,
        ..case(name, what, mode)
    };
    vec![
        shared("shared_parse_drop", "shared parser, drop", Mode::Plain),
        shared(
            "shared_exact_miss",
            "exact lookup of dst MAC (miss), drop",
            Mode::Plain,
        ),
        Case {
            p4_entries: vec![P4Entry::new(
                "SetTtl.ttl_by_dst",
                &[dst_text],
                "set_ttl",
                &[&NEW_TTL.to_string()],
            )],
            twin_entries: vec![RawEntries::one("ttl_by_dst", &packet::DST_IP, &[NEW_TTL])],
            ..shared(
                "shared_exact_ttl",
                "exact lookup (hit) gives TTL, write it, drop",
                Mode::Plain,
            )
        },
        shared(
            "shared_udp_rewrite",
            "write UDP src port + IPv4 src, both checksums, drop",
            Mode::Plain,
        ),
        shared("shared_mac_swap", "swap MACs, XDP_TX", Mode::Plain),
        Case {
            p4_entries: vec![P4Entry::new(
                "Push.tag_by_dst",
                &[dst_text],
                "push_tag",
                &[&TAG_VALUE.to_string()],
            )],
            twin_entries: vec![RawEntries::one(
                "tag_by_dst",
                &packet::DST_IP,
                &TAG_VALUE.to_ne_bytes(),
            )],
            ..shared(
                "shared_push_header",
                "exact lookup (hit) pushes an 8-byte tag after Ethernet, XDP_TX",
                Mode::Live,
            )
        },
        Case {
            p4_entries: vec![P4Entry::new(
                "Pop.untag_by_dst",
                &[dst_text],
                "pop_vlan",
                &[],
            )],
            twin_entries: vec![RawEntries::one(
                "untag_by_dst",
                &packet::DST_IP,
                &1u32.to_ne_bytes(),
            )],
            packet: vlan_packet(),
            ..shared(
                "shared_pop_header",
                "exact lookup (hit) pops the VLAN tag, XDP_TX",
                Mode::Live,
            )
        },
    ]
}

/// The value the push case's tag carries. Live frames come back with the
/// bytes the last run wrote: the pushed tag's last two bytes land where the
/// next frame's EtherType is read, so they say IPv4 and every frame takes
/// the same path.
const TAG_VALUE: u32 = 0x0001_0800;

/// The benchmark packet with a VLAN tag (VID 100) after the MACs, for the
/// pop case. Live frames come back with the bytes the last run wrote, here
/// the MACs moved 4 bytes on: after a few pops the EtherType is read from
/// what were bytes 0-1 of the destination MAC, 4-5 of it and 2-3 of the
/// source MAC, so all of them are 0x8100 and every frame is tagged IPv4.
fn vlan_packet() -> Vec<u8> {
    let mut p = packet::udp_packet(packet::DST_IP);
    p[0..12].copy_from_slice(&[0x81, 0, 0, 0, 0x81, 0, 2, 0, 0x81, 0, 0, 1]);
    p.splice(12..12, [0x81, 0x00, 0x00, 0x64]);
    p
}

const NEXT_HOP: [u8; 6] = [2, 0, 0, 0, 0, 0x10];
const NEXT_HOP_TEXT: &str = "02:00:00:00:00:10";
const OWN_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0x11];
const OWN_MAC_TEXT: &str = "02:00:00:00:00:11";
/// The P4 port the v1model router sends to.
const V1MODEL_PORT: u32 = 1;

/// `struct route_key` of `c/l3_fwd.c`: 10.0.0.0/8.
fn route_key() -> Vec<u8> {
    let mut key = 8u32.to_ne_bytes().to_vec();
    key.extend_from_slice(&[10, 0, 0, 0]);
    key
}

/// `struct next_hop` of `c/l3_fwd.c`.
fn next_hop(port: u32) -> Vec<u8> {
    let mut value = NEXT_HOP.to_vec();
    value.extend_from_slice(&OWN_MAC);
    value.extend_from_slice(&port.to_ne_bytes());
    value
}

/// A router timed on live frames: the P4 program's route 10.0.0.0/8
/// forwards to `p4_port` (the XDP port `port` where the program takes
/// ports as they are), the twin's to `port`.
fn routed(name: &'static str, what: &'static str, port: u32, p4_port: Option<u32>) -> Case {
    let out = p4_port.unwrap_or(port).to_string();
    Case {
        family: Family::Routed,
        p4_entries: vec![P4Entry::new(
            "Forward.routes",
            &["10.0.0.0/8"],
            "forward",
            &[NEXT_HOP_TEXT, OWN_MAC_TEXT, &out],
        )],
        twin_entries: vec![RawEntries::one("routes", &route_key(), &next_hop(port))],
        p4_port,
        ..case(name, what, Mode::Live)
    }
}

pub fn case(name: &'static str, what: &'static str, mode: Mode) -> Case {
    Case {
        name,
        what,
        mode,
        family: Family::Study,
        p4_entries: Vec::new(),
        twin_entries: Vec::new(),
        packet: packet::udp_packet(packet::DST_IP),
        p4_port: None,
        hook: Hook::Xdp,
        corpus: None,
        p4_ports: Vec::new(),
        verdict: None,
    }
}
