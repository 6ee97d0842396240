//! Header validity: which header types may ever be valid, and which may
//! change validity after the parser (so that "valid" no longer means
//! "extracted from the packet"). Facts are per header type: two instances
//! of one type share them, which only makes the facts more cautious.
//!
//! A header type is *made valid* by an extract, a `setValid()` or an
//! assignment of a whole header (or of a struct, union, stack or `out`
//! argument holding one); it is *changed* by all of those except an
//! extract, and by `setInvalid()`, a union member's `setValid()` and a
//! stack shift. A type nothing makes valid is never valid: [`drop_dead`]
//! removes its emits and folds its `isValid()` tests to `false`. A type
//! only extracts make valid can only fall from what the parser left: when
//! valid, it was extracted.

use super::correspond::HeaderRef;
use super::visit::{walk_program, Descend, Visitor};
use crate::ir::{AggId, Expr, ExprKind, Program, Stmt, Ty, VarStorage};
use std::collections::BTreeSet;

#[derive(Clone, Debug, Default)]
pub struct HeaderFacts {
    made_valid: BTreeSet<AggId>,
    /// Made valid by something other than an extract.
    revalidated: BTreeSet<AggId>,
    changed: BTreeSet<AggId>,
    /// Some statement writes headers whole (valid bit, fields and all).
    overwritten: bool,
}

impl HeaderFacts {
    pub fn of(prog: &Program) -> HeaderFacts {
        let mut v = Collect {
            prog,
            facts: HeaderFacts::default(),
        };
        walk_program(&mut v, prog);
        v.facts
    }

    /// No statement can make a header of this type valid.
    pub fn never_valid(&self, agg: AggId) -> bool {
        !self.made_valid.contains(&agg)
    }

    /// Nothing but an extract makes a header of this type valid: a valid
    /// one was extracted, an invalid one may have been popped.
    pub fn only_falls(&self, agg: AggId) -> bool {
        !self.revalidated.contains(&agg)
    }

    /// A header of this type is valid exactly when the parser extracted it.
    pub fn stable(&self, agg: AggId) -> bool {
        !self.changed.contains(&agg)
    }

    /// Some assignment (or `out` argument) writes whole headers: a copy
    /// brings another header's validity and place, so headers cannot be
    /// followed to where they were parsed.
    pub fn headers_overwritten(&self) -> bool {
        self.overwritten
    }
}

/// The header types held in a value of type `ty` (itself included).
pub fn headers_in(prog: &Program, ty: &Ty) -> Vec<AggId> {
    match ty {
        Ty::Header(a) => vec![*a],
        Ty::Stack { elem, .. } => vec![*elem],
        Ty::Struct(a) | Ty::Union(a) => prog
            .agg(*a)
            .map(|agg| {
                agg.fields
                    .iter()
                    .flat_map(|f| headers_in(prog, &f.ty))
                    .collect()
            })
            .unwrap_or_default(),
        Ty::Bool | Ty::Bits { .. } | Ty::Error | Ty::Void | Ty::Varbit { .. } => vec![],
    }
}

struct Collect<'p> {
    prog: &'p Program,
    facts: HeaderFacts,
}

impl Collect<'_> {
    /// Everything `ty` holds may become valid and has changed.
    fn overwritten(&mut self, ty: &Ty) {
        for a in headers_in(self.prog, ty) {
            self.facts.made_valid.insert(a);
            self.facts.revalidated.insert(a);
            self.facts.changed.insert(a);
            self.facts.overwritten = true;
        }
    }

    fn set_valid(&mut self, header: &Expr, valid: bool) {
        let Ty::Header(a) = header.ty else { return };
        self.facts.changed.insert(a);
        if valid {
            self.facts.made_valid.insert(a);
            self.facts.revalidated.insert(a);
        }
        // Validating a union member invalidates its siblings.
        if let ExprKind::Field { base, .. } = &header.kind {
            if matches!(base.ty, Ty::Union(_)) {
                self.facts.changed.extend(headers_in(self.prog, &base.ty));
            }
        }
    }

    fn out_arguments(&mut self, action: crate::ir::ActionId, args: &[Expr]) {
        let params = self
            .prog
            .action(action)
            .map(|a| a.params.clone())
            .unwrap_or_default();
        for (param, arg) in params.iter().zip(args) {
            if self
                .prog
                .var(*param)
                .is_some_and(|v| v.storage == VarStorage::ActionOutParam)
            {
                self.overwritten(&arg.ty);
            }
        }
    }
}

impl Visitor for Collect<'_> {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        match s {
            Stmt::Extract { header, .. } => {
                self.facts
                    .made_valid
                    .extend(headers_in(self.prog, &header.ty));
            }
            Stmt::Assign { lhs, .. } => {
                // A header's varbit may change size: the packet is rebuilt.
                if matches!(lhs.kind, ExprKind::VarbitField { .. }) {
                    self.facts.overwritten = true;
                }
                self.overwritten(&lhs.ty)
            }
            Stmt::SetValid { header, valid } => self.set_valid(header, *valid),
            Stmt::StackShift { stack, .. } => {
                // An element valid after a shift was extracted elsewhere.
                let shifted = headers_in(self.prog, &stack.ty);
                self.facts.changed.extend(shifted.iter().copied());
                self.facts.revalidated.extend(shifted);
            }
            Stmt::CallAction { action, args } => self.out_arguments(*action, args),
            _ => {}
        }
        Descend::Yes
    }

    fn expr(&mut self, e: &Expr) -> Descend {
        // An extern may write any aggregate it is given.
        if let ExprKind::ExternCall { args, .. } = &e.kind {
            for a in args {
                self.overwritten(&a.ty);
            }
        }
        Descend::Yes
    }
}

/// Removes what concerns headers that are never valid: their emits go,
/// their `isValid()` becomes `false`, and conditions made constant by that
/// keep only the branch they take.
pub fn drop_dead(prog: &mut Program) {
    let facts = HeaderFacts::of(prog);
    let dead = |ty: &Ty| matches!(ty, Ty::Header(a) if facts.never_valid(*a));
    // A union member's validity is the union's business: leave unions alone.
    let in_union = |e: &Expr| matches!(&e.kind, ExprKind::Field { base, .. } if matches!(base.ty, Ty::Union(_)));
    let mut fold = |e: &mut Expr| {
        if let ExprKind::IsValid(h) = &e.kind {
            if dead(&h.ty) && !in_union(h) {
                e.kind = ExprKind::Bool(false);
            }
        }
        super::fold::fold_expr(e);
    };
    let mut prune = |body: &mut Vec<Stmt>| {
        body.retain(
            |s| !matches!(s, Stmt::Emit { header } if dead(&header.ty) && !in_union(header)),
        );
        super::fold::fold_branches(body);
    };
    for body in super::bodies_mut(prog) {
        super::visit::rewrite_exprs(body, &mut fold);
        super::visit::rewrite_stmts(body, &mut prune);
    }
}

/// `if (h.isValid()) { emit(h); }` is `emit(h)`: an emit writes only a
/// valid header. Written out, the emit is no longer conditional, so the
/// deparser need not rebuild the packet for it.
pub fn unguard_emits(prog: &mut Program) {
    let unguarded = |s: &Stmt| -> Option<Stmt> {
        let Stmt::If { cond, then, other } = s else {
            return None;
        };
        let (ExprKind::IsValid(tested), [Stmt::Emit { header }], []) =
            (&cond.kind, then.as_slice(), other.as_slice())
        else {
            return None;
        };
        let same = HeaderRef::of(tested).is_some_and(|t| HeaderRef::of(header) == Some(t));
        same.then(|| Stmt::Emit {
            header: header.clone(),
        })
    };
    for body in super::bodies_mut(prog) {
        super::visit::rewrite_stmts(body, &mut |list| {
            for s in list.iter_mut() {
                if let Some(emit) = unguarded(s) {
                    *s = emit;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::midend::tests::{agg, lowered};

    const PROGRAM: &str = "
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> ty; }
header vlan_t { bit<16> tci; bit<16> ty; }
header tag_t { bit<32> v; }
header never_t { bit<8> x; }
struct hs { eth_t eth; vlan_t vlan; tag_t tag; never_t never; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); transition select(hdr.eth.ty) { 0x8100: vlan; default: accept; } }
    state vlan { p.extract(hdr.vlan); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    action pop() { hdr.vlan.setInvalid(); }
    action push() { hdr.tag.setValid(); hdr.tag.v = 1; }
    table t { key = { hdr.eth.dst: exact; } actions = { pop; push; } }
    apply {
        omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS;
        t.apply();
        if (hdr.never.isValid()) { hdr.eth.ty = 0x1111; } else { hdr.eth.ty = 0x2222; }
    }
}
control dprs(in hs hdr, packet_out p) {
    apply { p.emit(hdr.eth); p.emit(hdr.vlan); p.emit(hdr.tag); p.emit(hdr.never); }
}
xdp(prs(), sw(), dprs()) main;
";

    #[test]
    fn extracted_and_untouched_headers_are_stable() {
        let prog = lowered(PROGRAM);
        let facts = HeaderFacts::of(&prog);
        assert!(facts.stable(agg(&prog, "eth_t")));
        assert!(!facts.never_valid(agg(&prog, "eth_t")));
    }

    #[test]
    fn set_valid_and_set_invalid_in_actions_change_validity() {
        let prog = lowered(PROGRAM);
        let facts = HeaderFacts::of(&prog);
        assert!(!facts.stable(agg(&prog, "vlan_t")));
        assert!(!facts.never_valid(agg(&prog, "vlan_t")));
        assert!(!facts.stable(agg(&prog, "tag_t")));
        assert!(!facts.never_valid(agg(&prog, "tag_t")));
    }

    #[test]
    fn a_header_only_extracts_make_valid_only_falls() {
        let prog = lowered(PROGRAM);
        let facts = HeaderFacts::of(&prog);
        // Popped by an action, never set valid: valid still means extracted.
        assert!(facts.only_falls(agg(&prog, "vlan_t")));
        assert!(facts.only_falls(agg(&prog, "eth_t")));
        assert!(!facts.only_falls(agg(&prog, "tag_t")));
        // A setValid() anywhere, the parser included, makes it rise.
        let parser_sets = PROGRAM.replace(
            "p.extract(hdr.vlan); transition accept;",
            "p.extract(hdr.vlan); hdr.vlan.setInvalid(); hdr.vlan.setValid(); transition accept;",
        );
        let prog = lowered(&parser_sets);
        assert!(!HeaderFacts::of(&prog).only_falls(agg(&prog, "vlan_t")));
    }

    #[test]
    fn a_header_nothing_makes_valid_is_never_valid() {
        let prog = lowered(PROGRAM);
        let facts = HeaderFacts::of(&prog);
        assert!(facts.never_valid(agg(&prog, "never_t")));
        assert!(facts.stable(agg(&prog, "never_t")));
    }

    #[test]
    fn whole_header_assignment_makes_valid_and_changes() {
        let copy = PROGRAM.replace(
            "t.apply();",
            "t.apply(); never_t n = hdr.never; hdr.never = n;",
        );
        let prog = lowered(&copy);
        let facts = HeaderFacts::of(&prog);
        assert!(!facts.never_valid(agg(&prog, "never_t")));
        assert!(!facts.stable(agg(&prog, "never_t")));
        assert!(facts.headers_overwritten());
        assert!(!HeaderFacts::of(&lowered(PROGRAM)).headers_overwritten());
    }

    #[test]
    fn an_emit_guarded_by_its_own_validity_is_unconditional() {
        let guarded = PROGRAM.replace(
            "p.emit(hdr.vlan);",
            "if (hdr.vlan.isValid()) { p.emit(hdr.vlan); } if (hdr.eth.isValid()) { p.emit(hdr.vlan); }",
        );
        let mut prog = lowered(&guarded);
        unguard_emits(&mut prog);
        let deparser = &prog.controls[1].body;
        assert!(matches!(deparser[1], Stmt::Emit { .. }), "{deparser:?}");
        // Guarded by another header's validity: still conditional.
        assert!(matches!(deparser[2], Stmt::If { .. }), "{deparser:?}");
    }

    #[test]
    fn dead_headers_are_neither_emitted_nor_tested() {
        let mut prog = lowered(PROGRAM);
        drop_dead(&mut prog);
        let text = format!("{:?}", prog.controls);
        let never = agg(&prog, "never_t");
        assert!(!text.contains(&format!("Header({never:?})")), "{text}");
        // The `else` branch alone is left.
        let sw = format!("{:?}", prog.controls[0].body);
        assert!(sw.contains("8738") && !sw.contains("4369"), "{sw}");
        assert!(!sw.contains("IsValid"), "{sw}");
    }
}
