//! Parser-to-deparser correspondence: does the deparser put the headers
//! back where the parser found them?
//!
//! Every path through the parser to `accept` extracts a sequence of
//! headers. The packet keeps its shape on that path when the deparser's
//! emits, restricted to the headers valid at the end, are exactly that
//! sequence. For a header whose validity nothing changes after the parser
//! ([`HeaderFacts::stable`]), valid means extracted, so the check is static
//! and made here once for all paths. Headers a control may push or pop are
//! checked when the packet reaches the deparser; only the emits up to the
//! last such header (the *prefix*) can move, and the stable headers after
//! it keep their bytes where they are.

use super::validity::HeaderFacts;
use super::visit::any_stmt;
use crate::ir::{Control, Expr, ExprKind, Next, Program, Stmt, Transition, Ty, VarId};

/// What the deparser does to the packet's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// On every path the emitted headers are the parsed ones, in place:
    /// only changed fields are written back.
    Kept,
    /// As `Kept`, unless a control changed the validity of one of the
    /// first `prefix` emitted headers: then those are rebuilt (resizing
    /// the packet) and the headers after them stay where they are.
    MayChange { prefix: usize },
    /// The emitted headers differ from the parsed ones: they replace them.
    Rebuilt,
}

/// A header named by a plain path from a variable: `hdr.ipv4` is the
/// variable `hdr` and the field indexes leading to it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HeaderRef {
    var: VarId,
    fields: Vec<usize>,
}

impl HeaderRef {
    /// The header `e` names, when it is a header reached by struct members.
    pub fn of(e: &Expr) -> Option<HeaderRef> {
        if !matches!(e.ty, Ty::Header(_)) {
            return None;
        }
        let mut fields = vec![];
        let mut at = e;
        loop {
            match &at.kind {
                ExprKind::Var(v) => {
                    fields.reverse();
                    return Some(HeaderRef { var: *v, fields });
                }
                ExprKind::Field { base, field, .. } if !matches!(base.ty, Ty::Union(_)) => {
                    fields.push(*field);
                    at = base;
                }
                _ => return None,
            }
        }
    }
}

/// Parser paths beyond this many are not enumerated (the deparser rebuilds).
const MAX_PATHS: usize = 4096;

/// The shape the deparser gives the packet, given what `facts` says of
/// header validity.
pub fn shape(prog: &Program, facts: &HeaderFacts, deparser: &Control) -> Shape {
    if facts.headers_overwritten() {
        return Shape::Rebuilt;
    }
    let Some(emits) = top_level_emits(&deparser.body) else {
        return Shape::Rebuilt;
    };
    let Some(paths) = parser_paths(prog) else {
        return Shape::Rebuilt;
    };
    let emitted: Vec<&HeaderRef> = emits.iter().map(|(h, _)| h).collect();
    for path in &paths {
        let kept: Vec<&HeaderRef> = emitted
            .iter()
            .copied()
            .filter(|h| path.contains(h))
            .collect();
        if kept.len() != path.len() || kept.iter().zip(path).any(|(a, b)| *a != b) {
            return Shape::Rebuilt;
        }
    }
    let stable = |ty: &Ty| matches!(ty, Ty::Header(a) if facts.stable(*a));
    match emits.iter().rposition(|(_, ty)| !stable(ty)) {
        None => Shape::Kept,
        Some(last) => Shape::MayChange { prefix: last + 1 },
    }
}

/// The deparser's emits when all are unconditional and of distinct plain
/// headers, with their types.
fn top_level_emits(body: &[Stmt]) -> Option<Vec<(HeaderRef, Ty)>> {
    let mut emits = vec![];
    for s in body {
        if let Stmt::Emit { header } = s {
            let h = HeaderRef::of(header)?;
            if emits.iter().any(|(e, _)| *e == h) {
                return None;
            }
            emits.push((h, header.ty.clone()));
        } else if any_stmt(std::slice::from_ref(s), |s| matches!(s, Stmt::Emit { .. })) {
            return None;
        }
    }
    Some(emits)
}

/// The headers each path from `start` to `accept` extracts, in order;
/// `None` when a path cannot be followed header by header (a loop, a
/// stack, an `advance`, an extract under a condition) or there are too many.
fn parser_paths(prog: &Program) -> Option<Vec<Vec<HeaderRef>>> {
    let paths = extract_paths(prog)?;
    let mut headers: Vec<Vec<HeaderRef>> = paths
        .into_iter()
        .map(|p| p.into_iter().map(|e| e.header).collect())
        .collect();
    headers.dedup();
    Some(headers)
}

/// One extract on a parser path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Extracted {
    pub header: HeaderRef,
    /// Its size in bytes; `None` when a varbit field makes it vary.
    pub bytes: Option<u32>,
}

/// As [`parser_paths`], with each extract's size.
pub fn extract_paths(prog: &Program) -> Option<Vec<Vec<Extracted>>> {
    let states = prog
        .parsers
        .first()
        .map_or(&[][..], |p| p.states.as_slice());
    let start = states.iter().position(|s| s.name == "start")?;
    let mut paths = vec![];
    let mut stack = vec![(start, vec![start], vec![])];
    while let Some((at, visited, mut headers)) = stack.pop() {
        let state = states.get(at)?;
        for s in &state.stmts {
            match s {
                Stmt::Extract {
                    header,
                    varbit_bits,
                } => headers.push(Extracted {
                    header: HeaderRef::of(header)?,
                    bytes: match (&header.ty, varbit_bits) {
                        (Ty::Header(a), None) => prog.agg(*a).map(|a| a.wire_bits / 8),
                        _ => None,
                    },
                }),
                Stmt::Advance { .. } | Stmt::AdvanceBy { .. } => return None,
                other
                    if any_stmt(std::slice::from_ref(other), |s| {
                        matches!(s, Stmt::Extract { .. })
                    }) =>
                {
                    return None
                }
                _ => {}
            }
        }
        let nexts: Vec<Next> = match &state.transition {
            Transition::Direct(n) => vec![*n],
            Transition::Select { cases, .. } => cases.iter().map(|c| c.next).collect(),
        };
        for next in nexts {
            match next {
                Next::Accept => paths.push(headers.clone()),
                Next::Reject => {}
                Next::State(s) if visited.contains(&s.index()) => return None,
                Next::State(s) => {
                    let mut seen = visited.clone();
                    seen.push(s.index());
                    stack.push((s.index(), seen, headers.clone()));
                }
            }
            if paths.len() + stack.len() > MAX_PATHS {
                return None;
            }
        }
    }
    // Several select cases often lead to the same path: check it once.
    paths.sort();
    paths.dedup();
    Some(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::midend::tests::lowered;

    /// A program over Ethernet, an optional VLAN, IPv4 or IPv6, UDP or
    /// TCP, and a tag only an action adds; `DECLS`, `CONTROL` and `EMITS` vary.
    const TEMPLATE: &str = "
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> ty; }
header vlan_t { bit<16> tci; bit<16> ty; }
header ip4_t { bit<64> a; bit<64> b; bit<8> ttl; bit<8> proto; bit<16> sum; }
header ip6_t { bit<64> a; bit<64> b; bit<64> c; bit<64> d; bit<64> e; }
header udp_t { bit<16> sp; bit<16> dp; bit<16> len; bit<16> sum; }
header tcp_t { bit<64> a; bit<64> b; bit<32> c; }
header tag_t { bit<32> v; }
struct hs { eth_t eth; vlan_t vlan; tag_t tag; ip4_t ip4; ip6_t ip6; udp_t udp; tcp_t tcp; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); transition select(hdr.eth.ty) {
        0x8100: vlan; 0x0800: ip4; 0x86dd: ip6; default: accept; } }
    state vlan { p.extract(hdr.vlan); transition select(hdr.vlan.ty) {
        0x0800: ip4; 0x86dd: ip6; default: accept; } }
    state ip4 { p.extract(hdr.ip4); transition select(hdr.ip4.proto) { 17: udp; 6: tcp; default: accept; } }
    state ip6 { p.extract(hdr.ip6); transition select(hdr.ip6.e[7:0]) { 17: udp; 6: tcp; default: reject; } }
    state udp { p.extract(hdr.udp); transition accept; }
    state tcp { p.extract(hdr.tcp); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    DECLS
    apply { omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS; CONTROL }
}
control dprs(in hs hdr, packet_out p) { apply { EMITS } }
xdp(prs(), sw(), dprs()) main;
";

    /// A table whose actions push the tag and pop the VLAN.
    const PUSH_POP: &str = "
        action push() { hdr.tag.setValid(); hdr.tag.v = 1; }
        action pop() { hdr.vlan.setInvalid(); }
        table t { key = { hdr.eth.dst: exact; } actions = { push; pop; NoAction; } }";

    fn shape_of(control: &str, emits: &str) -> Shape {
        let decls = if control.contains("t.apply()") {
            PUSH_POP
        } else {
            ""
        };
        let source = TEMPLATE
            .replace("DECLS", decls)
            .replace("CONTROL", control)
            .replace("EMITS", emits);
        let prog = lowered(&source);
        let facts = HeaderFacts::of(&prog);
        shape(&prog, &facts, &prog.controls[1])
    }

    const ALL: &str = "p.emit(hdr.eth); p.emit(hdr.vlan); p.emit(hdr.tag); p.emit(hdr.ip4); p.emit(hdr.ip6); p.emit(hdr.udp); p.emit(hdr.tcp);";

    #[test]
    fn emitting_every_header_in_parse_order_keeps_the_shape() {
        assert_eq!(shape_of("hdr.eth.src = 1;", ALL), Shape::Kept);
    }

    #[test]
    fn a_header_the_parser_extracts_but_nobody_emits_is_a_rebuild() {
        let no_tcp = ALL.replace("p.emit(hdr.tcp);", "");
        assert_eq!(shape_of("", &no_tcp), Shape::Rebuilt);
    }

    #[test]
    fn emits_out_of_parse_order_are_a_rebuild() {
        let swapped = ALL.replace(
            "p.emit(hdr.ip4); p.emit(hdr.ip6); p.emit(hdr.udp);",
            "p.emit(hdr.udp); p.emit(hdr.ip4); p.emit(hdr.ip6);",
        );
        assert_eq!(shape_of("", &swapped), Shape::Rebuilt);
    }

    #[test]
    fn order_between_alternatives_does_not_matter() {
        // No path extracts both IPv4 and IPv6.
        let swapped = ALL.replace(
            "p.emit(hdr.ip4); p.emit(hdr.ip6);",
            "p.emit(hdr.ip6); p.emit(hdr.ip4);",
        );
        assert_eq!(shape_of("", &swapped), Shape::Kept);
    }

    #[test]
    fn pushes_and_pops_in_actions_make_the_prefix_up_to_the_last_of_them() {
        // vlan (popped) is the 2nd emit, tag (pushed) the 3rd.
        assert_eq!(shape_of("t.apply();", ALL), Shape::MayChange { prefix: 3 });
        let tag_first = ALL.replace("p.emit(hdr.tag);", "");
        let tag_first = format!("p.emit(hdr.tag); {tag_first}");
        assert_eq!(
            shape_of("t.apply();", &tag_first),
            Shape::MayChange { prefix: 3 }
        );
    }

    #[test]
    fn a_conditional_emit_is_a_rebuild() {
        let cond = ALL.replace(
            "p.emit(hdr.udp);",
            "if (hdr.ip4.ttl == 1) { p.emit(hdr.udp); }",
        );
        assert_eq!(shape_of("", &cond), Shape::Rebuilt);
    }

    #[test]
    fn after_the_passes_an_emit_guarded_by_its_validity_keeps_the_shape() {
        let guarded = ALL.replace(
            "p.emit(hdr.udp);",
            "if (hdr.udp.isValid()) { p.emit(hdr.udp); }",
        );
        let source = TEMPLATE
            .replace("DECLS", "")
            .replace("CONTROL", "")
            .replace("EMITS", &guarded);
        let mut prog = lowered(&source);
        crate::midend::run(&mut prog);
        let facts = HeaderFacts::of(&prog);
        assert_eq!(shape(&prog, &facts, &prog.controls[1]), Shape::Kept);
    }

    #[test]
    fn a_whole_header_copy_is_a_rebuild() {
        // The copy brings the other header's validity and place.
        assert_eq!(shape_of("hdr.udp = hdr.udp;", ALL), Shape::Rebuilt);
    }

    #[test]
    fn a_header_set_valid_in_the_control_counts_as_pushed() {
        assert_eq!(
            shape_of("if (hdr.udp.isValid()) { hdr.tcp.setValid(); }", ALL),
            Shape::MayChange { prefix: 7 }
        );
    }
}
