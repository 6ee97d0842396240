//! Where the parser leaves the packet: the headers that lie at different
//! offsets on different paths to `accept`, and whether the paths end
//! after different lengths.
//!
//! The kernel's verifier walks the code after the parser once for every
//! state it reaches `accept` in, and states differ by what is known of
//! the packet: how many bytes each path proved there, and where each
//! header is when its offset is a constant. With no VLAN tag, one or two,
//! IPv4 sits at 14, 18 or 22 bytes, and each table after the parser is
//! verified three times. The emitter hides those differences (see
//! `emit::parser_merge`), so the paths merge into one state.

use super::correspond::{extract_paths, Extracted, HeaderRef};
use super::visit::{walk_expr, walk_stmts, Descend, Visitor};
use crate::ir::{Expr, Program, Stmt};
use std::collections::{BTreeMap, BTreeSet};

/// What differs between the parser's paths to `accept`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// Headers code after the parser mentions, extracted at different
    /// offsets on paths alike in the other mentioned headers (or after a
    /// varbit field, at offsets only known at run time).
    pub moving: BTreeSet<HeaderRef>,
    /// The paths end after different numbers of bytes.
    pub lengths_differ: bool,
    /// How many more times than once the verifier walks the code after
    /// the parser because of `moving`: placements of the mentioned
    /// headers beyond the first, over paths alike in them.
    pub extra_walks: usize,
    /// Table applications in the code after the parser.
    pub applies: usize,
}

impl Placement {
    /// The placement of the first parser's headers. Paths that differ in
    /// a header code after the parser mentions stay apart for the verifier
    /// anyway (it tests the header's validity), so only paths alike in
    /// those are compared. Nothing differs when the paths cannot be
    /// followed header by header (loops, stacks, `advance`: their offsets
    /// are run-time values already).
    pub fn of(prog: &Program) -> Placement {
        let Some(paths) = extract_paths(prog) else {
            return Placement::default();
        };
        let (observed, applies) = mentioned_after_parsing(prog);
        let mut groups: BTreeMap<Vec<&HeaderRef>, Vec<&Vec<Extracted>>> = BTreeMap::new();
        for path in &paths {
            let seen = path
                .iter()
                .map(|e| &e.header)
                .filter(|h| observed.contains(h));
            groups.entry(seen.collect()).or_default().push(path);
        }
        let mut placement = Placement::default();
        for group in groups.values() {
            placement.add_group(group, &observed);
        }
        // Where the parser left a header nothing mentions is never asked.
        placement.moving.retain(|h| observed.contains(h));
        placement.applies = applies;
        placement
    }

    /// Adds what differs between `paths`.
    fn add_group(&mut self, paths: &[&Vec<Extracted>], observed: &BTreeSet<HeaderRef>) {
        let mut offsets: BTreeMap<&HeaderRef, BTreeSet<Option<u32>>> = BTreeMap::new();
        let mut lengths = BTreeSet::new();
        let mut placements = BTreeSet::new();
        for path in paths {
            let mut at = Some(0u32);
            let mut placed = vec![];
            for e in path.iter() {
                offsets.entry(&e.header).or_default().insert(at);
                if observed.contains(&e.header) {
                    placed.push((&e.header, at));
                }
                at = at.zip(e.bytes).map(|(a, b)| a + b);
            }
            lengths.insert(at);
            placements.insert(placed);
        }
        self.extra_walks += placements.len().saturating_sub(1);
        let moving = offsets
            .into_iter()
            .filter(|(_, at)| at.len() > 1 || at.contains(&None));
        self.moving.extend(moving.map(|(h, _)| h.clone()));
        self.lengths_differ |= lengths.len() > 1 || lengths.contains(&None);
    }
}

/// The headers controls, actions and table keys mention (the deparser's
/// emits aside: they test nothing the parser did not decide), and the
/// number of table applications.
fn mentioned_after_parsing(prog: &Program) -> (BTreeSet<HeaderRef>, usize) {
    struct Mentions(BTreeSet<HeaderRef>, usize);
    impl Visitor for Mentions {
        fn stmt(&mut self, s: &Stmt) -> Descend {
            match s {
                Stmt::Emit { .. } => return Descend::No,
                Stmt::Apply { .. } | Stmt::SwitchAction { .. } => self.1 += 1,
                _ => {}
            }
            Descend::Yes
        }
        fn expr(&mut self, e: &Expr) -> Descend {
            self.0.extend(HeaderRef::of(e));
            Descend::Yes
        }
    }
    let mut m = Mentions(BTreeSet::new(), 0);
    for body in prog.controls.iter().map(|c| &c.body) {
        walk_stmts(&mut m, body);
    }
    for body in prog.actions.iter().map(|a| &a.body) {
        walk_stmts(&mut m, body);
    }
    for key in prog.tables.iter().flat_map(|t| &t.keys) {
        walk_expr(&mut m, &key.expr);
    }
    (m.0, m.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ExprKind;
    use crate::midend::tests::lowered;

    /// Ethernet, then `STATES`; the control runs `CONTROL`, the deparser
    /// emits nothing.
    fn placement(states: &str, control: &str) -> (Program, Placement) {
        let text = format!(
            "
#include <xdp_model.p4>
header eth_t {{ bit<48> dst; bit<48> src; bit<16> ty; }}
header vlan_t {{ bit<16> tci; bit<16> ty; }}
header ip_t {{ bit<64> a; bit<64> b; bit<8> ttl; bit<8> proto; bit<16> sum; }}
header udp_t {{ bit<16> sp; bit<16> dp; bit<16> len; bit<16> sum; }}
struct hs {{ eth_t eth; vlan_t outer; vlan_t inner; ip_t ip; udp_t udp; }}
parser prs(packet_in p, out hs hdr) {{ {states} }}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {{
    action set(bit<8> ttl) {{ hdr.ip.ttl = ttl; }}
    table t {{ key = {{ hdr.udp.dp: exact; }} actions = {{ set; }} }}
    apply {{ omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS; {control} }}
}}
control dprs(in hs hdr, packet_out p) {{ apply {{ }} }}
xdp(prs(), sw(), dprs()) main;
"
        );
        let prog = lowered(&text);
        let placement = Placement::of(&prog);
        (prog, placement)
    }

    /// The names of the moving headers, by the extracts naming them.
    fn moving(prog: &Program, p: &Placement) -> Vec<&'static str> {
        let names = ["eth", "outer", "inner", "ip", "udp"];
        let mut found = vec![];
        for state in prog.parsers.iter().flat_map(|p| &p.states) {
            for s in &state.stmts {
                let Stmt::Extract { header, .. } = s else {
                    continue;
                };
                let ExprKind::Field { field, .. } = &header.kind else {
                    continue;
                };
                if HeaderRef::of(header).is_some_and(|h| p.moving.contains(&h)) {
                    found.push(names.get(*field).copied().unwrap_or("?"));
                }
            }
        }
        found.sort();
        found.dedup();
        found
    }

    const QINQ: &str = "
    state start { p.extract(hdr.eth); transition select(hdr.eth.ty) { 0x8100: outer; 0x0800: ip; default: accept; } }
    state outer { p.extract(hdr.outer); transition select(hdr.outer.ty) { 0x8100: inner; 0x0800: ip; default: accept; } }
    state inner { p.extract(hdr.inner); transition select(hdr.inner.ty) { 0x0800: ip; default: accept; } }
    state ip { p.extract(hdr.ip); transition select(hdr.ip.proto) { 17: udp; default: accept; } }
    state udp { p.extract(hdr.udp); transition accept; }";

    #[test]
    fn headers_behind_optional_tags_move() {
        let (prog, p) = placement(QINQ, "t.apply(); t.apply();");
        assert_eq!(moving(&prog, &p), ["ip", "udp"]);
        assert!(p.lengths_differ);
        // IPv4 at 14, 18 or 22 bytes, with UDP or without.
        assert_eq!(p.extra_walks, 4);
        assert_eq!(p.applies, 2);
    }

    #[test]
    fn paths_apart_in_a_tested_header_are_not_compared() {
        // Whether the outer tag is there is tested: IPv4 still moves
        // between one tag and two.
        let (prog, p) = placement(QINQ, "if (hdr.outer.isValid()) { t.apply(); }");
        assert_eq!(moving(&prog, &p), ["ip", "udp"]);
        // Both tags tested: on paths alike in both, IPv4 never moves.
        let both = "if (hdr.outer.isValid() && hdr.inner.isValid()) { t.apply(); }";
        let (prog, p) = placement(QINQ, both);
        assert!(moving(&prog, &p).is_empty(), "{p:?}");
        assert_eq!(p.extra_walks, 0);
    }

    #[test]
    fn one_path_has_nothing_that_differs() {
        let (_, p) = placement(
            "state start { p.extract(hdr.eth); p.extract(hdr.ip); p.extract(hdr.udp); transition accept; }",
            "t.apply();",
        );
        assert!(p.moving.is_empty() && !p.lengths_differ && p.extra_walks == 0);
    }

    #[test]
    fn a_parser_loop_is_left_to_run_time_offsets() {
        let (_, p) = placement(
            "state start { p.extract(hdr.eth); transition select(hdr.eth.ty) { 0x8100: start; default: accept; } }",
            "t.apply();",
        );
        assert_eq!(p, Placement::default());
    }
}
