//! Field def-use: which header fields the program assigns ([`Writes`])
//! and which it ever reads ([`Reads`]).
//!
//! The deparser writes back only assigned fields, and assignments store
//! into the packet where they happen when the field has one place there
//! (a plain path like `hdr.ipv4.ttl` of a header whose validity never
//! changes); other writes (through an `out` argument, a slice, a stack
//! element, or to a header that may be pushed or popped) are *indirect*:
//! the deparser writes them back. A parser whose state lives in the per-CPU
//! scratch extracts only the fields read, since clang cannot drop stores to
//! map memory it does not see read.

use super::validity::{headers_in, HeaderFacts};
use super::visit::{walk_expr, walk_program, walk_stmts, Descend, Visitor};
use crate::ir::{ActionId, AggId, AggKind, Expr, ExprKind, Program, Stmt, Ty, VarStorage};
use std::collections::{BTreeMap, BTreeSet};

/// Header fields by (header type, field index).
pub type FieldSet = BTreeSet<(AggId, usize)>;

#[derive(Default)]
pub struct Writes {
    /// Header fields assigned somewhere.
    pub fields: FieldSet,
    /// Fields also assigned other than by a plain `hdr.h.f = v`, or of a
    /// header type whose validity may change: the deparser writes them.
    pub indirect: FieldSet,
    /// Fields assigned in more than one place (both arms of an if-else),
    /// whose stores clang may merge.
    pub repeated: FieldSet,
    /// The action assigning a field, for fields assigned in an action: it
    /// is inlined wherever it is run, so it is repeated if it runs from
    /// more than one place, which only the emitter knows.
    pub in_action: BTreeMap<(AggId, usize), ActionId>,
}

/// The (header type, field) a header field expression names, if any.
pub fn header_field(e: &Expr) -> Option<(AggId, usize)> {
    match &e.kind {
        ExprKind::Field { agg, field, base } if matches!(base.ty, Ty::Header(_)) => {
            Some((*agg, *field))
        }
        _ => None,
    }
}

/// The header field holding the struct member `e` names (`hdr.h.s.x`:
/// `s`, a struct inside a header), if any.
fn enclosing_header_field(mut e: &Expr) -> Option<(AggId, usize)> {
    while let ExprKind::Field { base, .. } = &e.kind {
        if let Some(field) = header_field(base) {
            return Some(field);
        }
        e = base;
    }
    None
}

/// Whether `e` is a path of struct members from a variable (`hdr.ipv4`),
/// which has one place in the packet once extracted.
pub fn plain_path(mut e: &Expr) -> bool {
    loop {
        match &e.kind {
            ExprKind::Var(_) => return true,
            ExprKind::Field { base, .. } => e = base,
            _ => return false,
        }
    }
}

impl Writes {
    /// Writes of the parser states, controls and actions.
    pub fn of(prog: &Program, facts: &HeaderFacts) -> Writes {
        let mut v = WriteWalk {
            prog,
            facts,
            w: Writes::default(),
            action: None,
        };
        for state in prog.parsers.iter().flat_map(|p| &p.states) {
            walk_stmts(&mut v, &state.stmts);
        }
        for c in &prog.controls {
            walk_stmts(&mut v, &c.body);
        }
        for (i, a) in prog.actions.iter().enumerate() {
            v.action = u32::try_from(i).ok().map(ActionId);
            walk_stmts(&mut v, &a.body);
        }
        v.w
    }
}

struct WriteWalk<'p> {
    prog: &'p Program,
    facts: &'p HeaderFacts,
    w: Writes,
    /// The action whose body is walked, if any.
    action: Option<ActionId>,
}

impl WriteWalk<'_> {
    fn assigned(&mut self, lhs: &Expr, through_pointer: bool) {
        // A whole header (or what holds headers) rewrites all their fields.
        for a in headers_in(self.prog, &lhs.ty) {
            let count = self.prog.agg(a).map_or(0, |g| g.fields.len());
            for f in 0..count {
                self.w.fields.insert((a, f));
                self.w.indirect.insert((a, f));
            }
        }
        let (target, sliced) = match &lhs.kind {
            ExprKind::Slice { base, .. } => (base.as_ref(), true),
            _ => (lhs, false),
        };
        let ExprKind::Field { base, agg, .. } = &target.kind else {
            return;
        };
        let Some(field) = header_field(target) else {
            // The deparser writes a struct inside a header whole.
            if let Some(field) = enclosing_header_field(target) {
                self.w.fields.insert(field);
                self.w.indirect.insert(field);
            }
            return;
        };
        if !self.w.fields.insert(field) {
            self.w.repeated.insert(field);
        }
        if let Some(action) = self.action {
            self.w.in_action.insert(field, action);
        }
        let whole_struct = target.ty.width().is_none();
        if sliced
            || through_pointer
            || whole_struct
            || !plain_path(base)
            || !self.facts.stable(*agg)
        {
            self.w.indirect.insert(field);
        }
    }
}

impl Visitor for WriteWalk<'_> {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        match s {
            Stmt::Assign { lhs, .. } => self.assigned(lhs, false),
            // `out`/`inout` arguments are written through pointers.
            Stmt::CallAction { action, args } => {
                let params = self.prog.action(*action).map(|a| a.params.as_slice());
                for (v, arg) in params.unwrap_or(&[]).iter().zip(args) {
                    if self
                        .prog
                        .var(*v)
                        .is_some_and(|v| v.storage == VarStorage::ActionOutParam)
                    {
                        self.assigned(arg, true);
                    }
                }
            }
            _ => {}
        }
        Descend::Yes
    }
}

#[derive(Default)]
pub struct Reads {
    fields: FieldSet,
    /// Something reads headers whole: every field counts as read.
    everything: bool,
    /// The headers a rebuilding deparser writes from the state: their
    /// fields count as read (not the metadata's).
    rebuilt: Vec<AggId>,
}

impl Reads {
    pub fn contains(&self, agg: AggId, field: usize) -> bool {
        self.everything || self.rebuilt.contains(&agg) || self.fields.contains(&(agg, field))
    }

    /// Reads of `prog` (parser, controls, actions, table keys and action
    /// arguments); `rebuilds`: the deparser may write every emitted field.
    pub fn of(prog: &Program, rebuilds: bool) -> Reads {
        let headers = (0..prog.aggregates.len()).filter_map(|i| u32::try_from(i).ok().map(AggId));
        let rebuilt = headers
            .filter(|id| rebuilds && prog.agg(*id).is_some_and(|a| a.kind == AggKind::Header))
            .collect();
        Reads::rebuilding(prog, rebuilt)
    }

    /// Reads of `prog`, with every field of the header types `rebuilt`
    /// (those the deparser may write from the state) read.
    pub fn rebuilding(prog: &Program, rebuilt: Vec<AggId>) -> Reads {
        let mut r = Reads {
            rebuilt,
            ..Reads::default()
        };
        walk_program(&mut r, prog);
        r
    }

    /// Whether no field of header type `agg` is read.
    pub fn none_of(&self, agg: AggId, fields: usize) -> bool {
        !(0..fields).any(|f| self.contains(agg, f))
    }

    /// A place named by a path (`hdr.ipv4`, `hdr.s[i]`): only its indexes
    /// are read.
    fn path(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(_) => {}
            ExprKind::Field { base, .. } => {
                // A struct inside a header is read whole when a member is
                // read or written: the deparser writes all its members.
                if let (Ty::Struct(_), Some(field)) = (&e.ty, header_field(e)) {
                    self.fields.insert(field);
                }
                self.path(base)
            }
            ExprKind::Index { base, index } => {
                self.path(base);
                walk_expr(self, index);
            }
            ExprKind::StackNext(b) | ExprKind::StackLast(b) => self.path(b),
            _ => walk_expr(self, e),
        }
    }
}

impl Visitor for Reads {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        match s {
            Stmt::Assign { lhs, rhs } => {
                // A slice keeps the field's other bits: a read too.
                if matches!(lhs.kind, ExprKind::Slice { .. }) {
                    walk_expr(self, lhs);
                } else {
                    self.path(lhs);
                }
                walk_expr(self, rhs);
                Descend::No
            }
            Stmt::SetValid { header, .. } | Stmt::Emit { header } => {
                self.path(header);
                Descend::No
            }
            // The varbit size is read: `extract(h.opt, (bit<32>)h.op.len * 8)`.
            Stmt::Extract {
                header,
                varbit_bits,
            } => {
                self.path(header);
                if let Some(bits) = varbit_bits {
                    walk_expr(self, bits);
                }
                Descend::No
            }
            Stmt::StackShift { .. } => {
                self.everything = true;
                Descend::No
            }
            _ => Descend::Yes,
        }
    }

    fn expr(&mut self, e: &Expr) -> Descend {
        match &e.kind {
            // Struct fields too: the emitter asks whether the ingress port is read.
            ExprKind::Field { base, agg, field }
                if matches!(base.ty, Ty::Header(_) | Ty::Struct(_)) =>
            {
                self.fields.insert((*agg, *field));
                self.path(base);
            }
            ExprKind::IsValid(b) | ExprKind::StackIndex { stack: b, .. } => self.path(b),
            // An aggregate used as a value is read whole.
            _ if !matches!(e.ty, Ty::Bits { .. } | Ty::Bool | Ty::Error | Ty::Void) => {
                self.everything = true;
            }
            ExprKind::Field { base, .. } => self.path(base),
            ExprKind::Index { base, index } => {
                self.path(base);
                walk_expr(self, index);
            }
            _ => return Descend::Yes,
        }
        Descend::No
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::midend::tests::{agg, lowered};

    const PROGRAM: &str = "
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> ty; }
header ip_t { bit<8> ttl; bit<8> proto; bit<16> sum; }
header tag_t { bit<32> v; }
struct hs { eth_t eth; ip_t ip; tag_t tag; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); p.extract(hdr.ip); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    action dec(inout bit<8> t) { t = t - 1; }
    action push() { hdr.tag.setValid(); hdr.tag.v = 7; }
    table tbl { key = { hdr.eth.dst: exact; } actions = { push; } }
    apply {
        omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS;
        hdr.eth.ty = 0x86dd;
        hdr.ip.sum[7:0] = 1;
        dec(hdr.ip.ttl);
        tbl.apply();
    }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.eth); p.emit(hdr.tag); p.emit(hdr.ip); } }
xdp(prs(), sw(), dprs()) main;
";

    #[test]
    fn plain_assignments_are_direct_the_rest_indirect() {
        let prog = lowered(PROGRAM);
        let w = Writes::of(&prog, &HeaderFacts::of(&prog));
        let (eth, ip, tag) = (agg(&prog, "eth_t"), agg(&prog, "ip_t"), agg(&prog, "tag_t"));
        assert!(w.fields.contains(&(eth, 2)) && !w.indirect.contains(&(eth, 2)));
        // A slice, an `inout` argument, a header that an action pushes.
        assert!(w.indirect.contains(&(ip, 2)));
        assert!(w.indirect.contains(&(ip, 0)));
        assert!(w.indirect.contains(&(tag, 0)));
        assert!(!w.fields.contains(&(ip, 1)));
    }

    #[test]
    fn a_varbit_size_is_read() {
        let prog = lowered(
            "
#include <xdp_model.p4>
header op_t { bit<8> len; bit<8> other; }
header opt_t { bit<8> kind; varbit<64> data; }
struct hs { op_t op; opt_t opt; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.op); p.extract(hdr.opt, (bit<32>)hdr.op.len * 8); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply { omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS; }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.op); p.emit(hdr.opt); } }
xdp(prs(), sw(), dprs()) main;
",
        );
        let r = Reads::of(&prog, false);
        let op = agg(&prog, "op_t");
        assert!(r.contains(op, 0), "the varbit size");
        assert!(!r.contains(op, 1));
    }

    #[test]
    fn a_struct_inside_a_header_is_read_and_written_whole() {
        let prog = lowered(
            "
#include <xdp_model.p4>
struct flags_t { bit<4> a; bit<4> b; }
header h_t { bit<8> x; flags_t flags; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply { hdr.h.flags.b = 1; omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS; }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.h); } }
xdp(prs(), sw(), dprs()) main;
",
        );
        let h = agg(&prog, "h_t");
        let r = Reads::of(&prog, false);
        assert!(r.contains(h, 1), "member `a` is written back unchanged");
        assert!(!r.contains(h, 0));
        let w = Writes::of(&prog, &HeaderFacts::of(&prog));
        assert!(w.fields.contains(&(h, 1)) && w.indirect.contains(&(h, 1)));
        assert!(!w.fields.contains(&(h, 0)));
    }

    #[test]
    fn reads_follow_fields_not_places() {
        let prog = lowered(PROGRAM);
        let r = Reads::of(&prog, false);
        let (eth, ip) = (agg(&prog, "eth_t"), agg(&prog, "ip_t"));
        assert!(r.contains(eth, 0), "the table key");
        assert!(
            !r.contains(eth, 1) && !r.contains(eth, 2),
            "never read, only assigned"
        );
        assert!(r.contains(ip, 2), "a slice assignment keeps the other bits");
        assert!(r.contains(ip, 0), "an inout argument");
        assert!(Reads::of(&prog, true).contains(eth, 1));
    }

    #[test]
    fn a_rebuilding_deparser_reads_headers_not_metadata() {
        let prog = lowered(PROGRAM);
        let rebuilt = Reads::of(&prog, true);
        assert!(rebuilt.contains(agg(&prog, "tag_t"), 0));
        // Nothing reads the ingress port: finding it would cost map lookups.
        assert!(!rebuilt.contains(agg(&prog, "xdp_input"), 0));
    }
}
