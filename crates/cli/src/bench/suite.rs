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
    pub p4_entries: Vec<P4Entry>,
    pub twin_entries: Vec<RawEntries>,
}

/// The floors: hand-written programs with nothing in them (`c/NAME.c`).
pub const FLOORS: [(&str, &str); 2] = [("drop", "return XDP_DROP"), ("tx", "return XDP_TX")];

/// The TTL the exact-match case writes.
const NEW_TTL: u8 = 63;

pub fn study() -> Vec<Case> {
    let dst = packet::DST_IP;
    let dst_text = format!("{}.{}.{}.{}", dst[0], dst[1], dst[2], dst[3]);
    vec![
        case("parse_drop", "parse Ethernet+IPv4, drop", Mode::Plain),
        case("exact_miss", "exact lookup of dst MAC (miss), drop", Mode::Plain),
        Case {
            p4_entries: vec![P4Entry::new("SetTtl.ttl_by_dst", &[&dst_text], "set_ttl", &[&NEW_TTL.to_string()])],
            twin_entries: vec![RawEntries::one("ttl_by_dst", &dst, &[NEW_TTL])],
            ..case("exact_ttl", "exact lookup (hit) gives TTL, write it, drop", Mode::Plain)
        },
        case("udp_rewrite", "write UDP src port + IPv4 src, both checksums, drop", Mode::Plain),
        case("mac_swap", "swap MACs, XDP_TX", Mode::Plain),
        case("push_header", "insert 8-byte header after Ethernet, XDP_TX", Mode::Live),
    ]
}

fn case(name: &'static str, what: &'static str, mode: Mode) -> Case {
    Case {
        name,
        what,
        mode,
        p4_entries: Vec::new(),
        twin_entries: Vec::new(),
    }
}
