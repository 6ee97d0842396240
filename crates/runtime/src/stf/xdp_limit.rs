//! Frames XDP cannot carry. An XDP frame keeps at least an Ethernet
//! header: `bpf_xdp_adjust_head` and `bpf_xdp_adjust_tail` refuse to
//! leave fewer than 14 bytes (net/core/filter.c), and no driver hands XDP
//! a shorter frame. BMv2's scripts send and expect such frames; at XDP a
//! run whose every failure sits on one of them is not applicable rather
//! than failed. A failure at any other line keeps the run failed, and a
//! short frame that runs fine (through `tun`, unresized) passes.

use super::parse::{Command, Line};
use p4bpf_layout::Hook;
use std::collections::BTreeMap;

/// Bytes of an Ethernet header: the shortest frame XDP carries.
pub const ETHERNET_HEADER: usize = 14;

/// Line number -> length in bytes of each frame shorter than an Ethernet
/// header that `script` sends or expects (an expect counts its pattern).
pub fn short_frames(script: &[Line]) -> BTreeMap<usize, usize> {
    script
        .iter()
        .filter_map(|line| {
            let bytes = match &line.command {
                Command::Packet { data, .. } => data.len(),
                Command::Expect { pattern, .. } => pattern.nibbles.len().div_ceil(2),
                _ => return None,
            };
            (bytes < ETHERNET_HEADER).then_some((line.number, bytes))
        })
        .collect()
}

/// Why a run at `hook` whose failures are at `failing` lines is not
/// applicable, when it is: at XDP, every failure at a short frame.
pub fn not_applicable(
    hook: Hook,
    failing: &[usize],
    short: &BTreeMap<usize, usize>,
) -> Option<String> {
    if hook != Hook::Xdp || failing.is_empty() {
        return None;
    }
    let mut at_short = failing.iter().map(|line| short.get_key_value(line));
    let (line, bytes) = at_short.clone().next().flatten()?;
    at_short.all(|found| found.is_some()).then(|| {
        let unit = if *bytes == 1 { "byte" } else { "bytes" };
        format!(
            "not applicable at XDP: the frame at line {line} is {bytes} {unit}, shorter than the {ETHERNET_HEADER}-byte Ethernet header XDP needs"
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;
    use std::path::Path;

    fn script(text: &str) -> Vec<Line> {
        super::super::parse(Path::new("x.stf"), text).unwrap()
    }

    #[test]
    fn frames_under_an_ethernet_header_are_found_sent_or_expected() {
        let s = script(
            "packet 0 00 2345\nexpect 0 00$\npacket 0 0000000000000000000000000000\nexpect 0 00000000000000000000000000\nexpect 1 0000000000000000000000000000\n",
        );
        let short: Vec<(usize, usize)> = short_frames(&s).into_iter().collect();
        assert_eq!(short, [(1, 3), (2, 1), (4, 13)]);
    }

    #[test]
    fn only_a_run_failing_at_short_frames_alone_and_at_xdp_is_not_applicable() {
        let short = BTreeMap::from([(3, 9), (5, 4)]);
        let why = not_applicable(Hook::Xdp, &[5, 3], &short).unwrap();
        assert_eq!(
            why,
            "not applicable at XDP: the frame at line 5 is 4 bytes, shorter than the 14-byte Ethernet header XDP needs"
        );
        assert_eq!(not_applicable(Hook::Xdp, &[3, 7], &short), None);
        let one = BTreeMap::from([(2, 1)]);
        let why = not_applicable(Hook::Xdp, &[2], &one).unwrap();
        assert!(why.contains("line 2 is 1 byte, shorter"), "{why}");
        assert_eq!(not_applicable(Hook::Tc, &[3], &short), None);
        assert_eq!(not_applicable(Hook::Xdp, &[], &short), None);
    }
}
