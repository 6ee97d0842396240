//! The benchmark cases: the six programs of the p4c-xdp study, each with
//! its hand-written twin (same file stem under `c/`), the two empty floors,
//! and the entries each needs so the packet takes the path the study timed.

use super::fill::{P4Entry, RawEntries};
use p4bpf_runtime::bench::packet;

/// How a case is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Plain `BPF_PROG_TEST_RUN` repeats on one buffer.
    Plain,
    /// Live frames: the program grows the packet or must really transmit.
    Live,
}

pub struct Case {
    /// File stem of `p4/NAME.p4` and `c/NAME.c`; the programs are
    /// `NAME_xdp` in both objects.
    pub name: &'static str,
    pub what: &'static str,
    pub mode: Mode,
    /// One of the study's six (else an extra case with its own table).
    pub study: bool,
    pub p4_entries: Vec<P4Entry>,
    pub twin_entries: Vec<RawEntries>,
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
    vec![
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
        Case {
            study: false,
            p4_entries: vec![P4Entry::new(
                "Forward.routes",
                &["10.0.0.0/8"],
                "forward",
                &[NEXT_HOP_TEXT, OWN_MAC_TEXT, &port.to_string()],
            )],
            twin_entries: vec![RawEntries::one("routes", &route_key(), &next_hop(port))],
            ..case(
                "l3_fwd",
                "LPM route, MACs, TTL-1 + checksum, XDP_REDIRECT",
                Mode::Live,
            )
        },
    ]
}

const NEXT_HOP: [u8; 6] = [2, 0, 0, 0, 0, 0x10];
const NEXT_HOP_TEXT: &str = "02:00:00:00:00:10";
const OWN_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0x11];
const OWN_MAC_TEXT: &str = "02:00:00:00:00:11";

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

fn case(name: &'static str, what: &'static str, mode: Mode) -> Case {
    Case {
        name,
        what,
        mode,
        study: true,
        p4_entries: Vec::new(),
        twin_entries: Vec::new(),
    }
}
