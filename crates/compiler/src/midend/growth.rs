//! Can the deparsers make a packet longer than it came in?
//!
//! A deparser replaces the bytes its parser extracted by the headers it
//! emits, so the packet grows only when it emits more bytes than were
//! extracted. That cannot happen when every emitted header, when valid,
//! stands for bytes an extract took from this packet and no two emits
//! stand for the same bytes:
//! - only extracts make its type valid ([`HeaderFacts::only_falls`]; a
//!   stack shift moves validity between elements but adds none);
//! - each emit names a fixed place (variable, members, constant stack
//!   indexes), no place is emitted twice, and no emit sits in a loop;
//! - it has no `varbit` field (an assignment may lengthen it).
//!
//! Anything else (a `setValid()`, a whole-header assignment, a pushed
//! header, a duplicated emit) may grow the packet; the answer is then
//! "yes", which costs the program an MTU check before it sends
//! ([`crate::emit::mtu`]). PSA's egress deparser is one more deparser:
//! each pass keeps within the bytes its own parser took.

use super::validity::HeaderFacts;
use super::visit::stmt_bodies;
use crate::ir::{Expr, ExprKind, Program, Step, Stmt, Ty};

/// Whether some run of `prog`'s deparsers may leave the packet longer
/// than it was before its parser ran.
pub fn may_grow(prog: &Program) -> bool {
    let facts = HeaderFacts::of(prog);
    prog.pipeline.iter().any(|step| match step {
        Step::Deparse(i) => prog
            .controls
            .get(*i)
            .is_none_or(|deparser| deparser_may_grow(prog, &facts, &deparser.body)),
        _ => false,
    })
}

fn deparser_may_grow(prog: &Program, facts: &HeaderFacts, body: &[Stmt]) -> bool {
    let mut emits = Emits::default();
    emits.walk(body, false);
    if emits.in_loop {
        return true;
    }
    let mut places = Vec::with_capacity(emits.headers.len());
    for header in emits.headers {
        let Ty::Header(agg) = header.ty else {
            return true;
        };
        let varbit = prog.agg(agg).is_none_or(|a| a.varbit.is_some());
        let Some(place) = Place::of(header) else {
            return true;
        };
        if varbit || !facts.only_falls(agg) || places.contains(&place) {
            return true;
        }
        places.push(place);
    }
    false
}

/// The emit statements of a deparser body, wherever they are nested.
#[derive(Default)]
struct Emits<'p> {
    headers: Vec<&'p Expr>,
    /// Some emit may run more than once.
    in_loop: bool,
}

impl<'p> Emits<'p> {
    fn walk(&mut self, body: &'p [Stmt], looping: bool) {
        for s in body {
            if let Stmt::Emit { header } = s {
                self.headers.push(header);
                self.in_loop |= looping;
            }
            let looping = looping || matches!(s, Stmt::Loop { .. });
            for nested in stmt_bodies(s) {
                self.walk(nested, looping);
            }
        }
    }
}

/// A header named by a path fixed at compile time: its variable, then
/// each member index or constant stack index.
#[derive(Debug, PartialEq, Eq)]
struct Place {
    var: usize,
    steps: Vec<u64>,
}

impl Place {
    fn of(e: &Expr) -> Option<Place> {
        let mut steps = vec![];
        let mut at = e;
        loop {
            match &at.kind {
                ExprKind::Var(v) => {
                    steps.reverse();
                    return Some(Place {
                        var: v.index(),
                        steps,
                    });
                }
                ExprKind::Field { base, field, .. } => {
                    steps.push(*field as u64);
                    at = base;
                }
                ExprKind::Index { base, index } => {
                    let ExprKind::Int(i) = &index.kind else {
                        return None;
                    };
                    steps.push(u64::try_from(i).ok()?);
                    at = base;
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::may_grow;
    use crate::midend::tests::lowered;

    /// Ethernet then an optional tunnel header; `CONTROL` is the control's
    /// body, `DEPARSER` the deparser's.
    const TEMPLATE: &str = "
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tun_t { bit<32> id; }
struct hs { eth_t eth; tun_t tun; tun_t[2] stack; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); transition select(hdr.eth.type) { 0x88b5: tun; default: accept; } }
    state tun { p.extract(hdr.tun); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply { omd.output_action = xdp_action.XDP_TX; CONTROL }
}
control dprs(in hs hdr, packet_out p) { apply { DEPARSER } }
xdp(prs(), sw(), dprs()) main;
";

    fn grows(control: &str, deparser: &str) -> bool {
        let source = TEMPLATE
            .replace("CONTROL", control)
            .replace("DEPARSER", deparser);
        may_grow(&lowered(&source))
    }

    #[test]
    fn rewriting_or_popping_headers_cannot_grow_the_packet() {
        let emits = "p.emit(hdr.eth); p.emit(hdr.tun);";
        assert!(!grows("hdr.eth.src = 1; hdr.tun.id = 2;", emits));
        assert!(!grows("hdr.tun.setInvalid();", emits));
        assert!(!grows("", "p.emit(hdr.tun);"));
        assert!(!grows(
            "",
            "if (hdr.tun.id == 1) { p.emit(hdr.eth); } p.emit(hdr.tun);"
        ));
        assert!(!grows("", "p.emit(hdr.eth); p.emit(hdr.stack);"));
    }

    #[test]
    fn a_header_made_valid_or_emitted_twice_may_grow_it() {
        let emits = "p.emit(hdr.eth); p.emit(hdr.tun);";
        assert!(grows("hdr.tun.setValid(); hdr.tun.id = 7;", emits));
        assert!(grows("hdr.tun = { 7 };", emits));
        assert!(grows("", "p.emit(hdr.eth); p.emit(hdr.eth);"));
        assert!(grows("", "p.emit(hdr.stack); p.emit(hdr.stack[1]);"));
        // The type is shared: pushing into the stack makes `tun` suspect too.
        assert!(grows("hdr.stack[0].setValid();", emits));
    }
}
