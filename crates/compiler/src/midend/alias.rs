//! Parameters of inlined controls that name their arguments instead of
//! holding copies of them.
//!
//! Lowering applies a control inside another by copying each argument into
//! the callee's parameter variable, inlining the body, and copying `inout`
//! ones back. When the argument is a plain place (a variable, its fields,
//! stack elements at constant indexes) that nothing else of the call
//! touches, and the callee is applied only there, the two copies are the
//! identity: the parameter is renamed to its argument everywhere (the
//! callee's body, actions and table keys) and both copies go. Without this
//! a program that hands `headers` down a hundred nested controls carries a
//! hundred copies of it in its per-packet state, each reset on every packet
//! and copied twice per control: megabytes of C and a verifier walk per
//! copy.
//!
//! Programs with `exit` keep their copies: an `exit` inside an inlined
//! control jumps out of it and copies back after it
//! (`emit/inline_exit.rs`); that renaming is equivalent there too has
//! not been shown yet.

use super::visit::{any_stmt, walk_stmts, Descend, Visitor};
use crate::ir::{Expr, ExprKind, Program, Stmt, Transition, VarId, VarStorage};
use std::collections::HashMap;

/// Renames every inlined control parameter that can be its argument.
pub fn alias_inline_params(prog: &mut Program) {
    let has_exit = |body: &[Stmt]| any_stmt(body, |s| matches!(s, Stmt::Exit));
    let exits = prog.controls.iter().any(|c| has_exit(&c.body))
        || prog.actions.iter().any(|a| has_exit(&a.body));
    if exits {
        return;
    }
    let mut found = Found::default();
    let uses_in_code = uses_in_bodies(prog);
    // Deparsers keep their copies: emits through a renamed parameter made
    // C the verifier refuses (psa-ebpf's etm-drop: a shifted pointer).
    let deparsers: Vec<usize> = prog
        .pipeline
        .iter()
        .filter_map(|s| match s {
            crate::ir::Step::Deparse(c) => Some(*c),
            _ => None,
        })
        .collect();
    for (i, c) in prog.controls.iter().enumerate() {
        if !deparsers.contains(&i) {
            found.in_list(prog, &c.body, &uses_in_code);
        }
    }
    let aliases = resolved(found.aliases);
    if aliases.is_empty() {
        return;
    }
    // Renamed wherever `visit::walk_program` looks: nothing names them after.
    rename(prog, &aliases);
    for v in aliases.keys() {
        if let Some(var) = prog.vars.get_mut(v.index()) {
            var.storage = VarStorage::Aliased;
        }
    }
    for body in super::bodies_mut(prog) {
        super::visit::rewrite_stmts(body, &mut |list| list.retain(|s| !self_copy(s)));
    }
}

/// Parameters found to be their arguments, with those arguments.
#[derive(Default)]
struct Found {
    aliases: HashMap<VarId, Expr>,
}

impl Found {
    /// Looks at each inlined body of `list` and of the lists inside it.
    fn in_list(&mut self, prog: &Program, list: &[Stmt], uses_in_code: &HashMap<VarId, usize>) {
        for (i, s) in list.iter().enumerate() {
            if let Stmt::Inline { name, body } = s {
                let call = Call::at(prog, list, i, name);
                self.at_call(prog, &call, body, uses_in_code);
            }
            for inner in super::visit::stmt_bodies(s) {
                self.in_list(prog, inner, uses_in_code);
            }
        }
    }

    /// Keeps each parameter of `call` that its argument can stand for.
    fn at_call(
        &mut self,
        prog: &Program,
        call: &Call,
        body: &[Stmt],
        uses_in_code: &HashMap<VarId, usize>,
    ) {
        let mut inside = Uses::default();
        walk_stmts(&mut inside, body);
        for (arg, p) in &call.copies_out {
            let state = prog.var(*p).is_some_and(|v| v.storage == VarStorage::State);
            let copied_in = call
                .copies_in
                .iter()
                .any(|(q, given)| q == p && same_place(given, arg));
            let Some(root) = place_root(arg) else {
                continue;
            };
            // Applied once: the copy in and the copy out are its only uses
            // outside the body.
            let total = uses_in_code.get(p).copied().unwrap_or(0);
            let outside = total.saturating_sub(inside.0.get(p).copied().unwrap_or(0));
            if state && copied_in && outside == 2 && call.copies_of(root) == 2 {
                self.aliases.insert(*p, (*arg).clone());
            }
        }
    }
}

/// The copies around one inlined control: in, just before its body, to
/// its parameters; out, just after, from them.
struct Call<'p> {
    copies_in: Vec<(VarId, &'p Expr)>,
    copies_out: Vec<(&'p Expr, VarId)>,
}

impl<'p> Call<'p> {
    /// The call whose body is `list[at]`, of the control instance `name`.
    fn at(prog: &Program, list: &'p [Stmt], at: usize, name: &str) -> Call<'p> {
        let prefix = format!("{name}.");
        let param = |e: &Expr| match e.kind {
            ExprKind::Var(v) => prog
                .var(v)
                .filter(|var| var.p4_name.starts_with(&prefix))
                .map(|_| v),
            _ => None,
        };
        let before = list[..at].iter().rev().map_while(assignment);
        let after = list[at + 1..].iter().map_while(assignment);
        Call {
            copies_in: before
                .filter_map(|(lhs, rhs)| Some((param(lhs)?, rhs)))
                .collect(),
            copies_out: after
                .filter_map(|(lhs, rhs)| Some((lhs, param(rhs)?)))
                .collect(),
        }
    }

    /// How many of the copies read or write a part of `root`.
    fn copies_of(&self, root: VarId) -> usize {
        let ins = self.copies_in.iter().filter(|(_, a)| mentions(a, root));
        let outs = self.copies_out.iter().filter(|(a, _)| mentions(a, root));
        ins.count() + outs.count()
    }
}

/// `lhs = rhs`, for the runs of copies around a call.
fn assignment(s: &Stmt) -> Option<(&Expr, &Expr)> {
    match s {
        Stmt::Assign { lhs, rhs } => Some((lhs, rhs)),
        _ => None,
    }
}

fn is_var(e: &Expr, v: VarId) -> bool {
    matches!(e.kind, ExprKind::Var(x) if x == v)
}

/// The variable a place is part of, when the place is fixed: fields and
/// stack elements at constant indexes of a variable.
fn place_root(e: &Expr) -> Option<VarId> {
    match &e.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Field { base, .. } => place_root(base),
        ExprKind::Index { base, index } if matches!(index.kind, ExprKind::Int(_)) => {
            place_root(base)
        }
        _ => None,
    }
}

fn same_place(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (
            ExprKind::Field {
                base: ba,
                field: fa,
                ..
            },
            ExprKind::Field {
                base: bb,
                field: fb,
                ..
            },
        ) => fa == fb && same_place(ba, bb),
        (
            ExprKind::Index {
                base: ba,
                index: ia,
            },
            ExprKind::Index {
                base: bb,
                index: ib,
            },
        ) => match (&ia.kind, &ib.kind) {
            (ExprKind::Int(x), ExprKind::Int(y)) => x == y && same_place(ba, bb),
            _ => false,
        },
        _ => false,
    }
}

fn mentions(e: &Expr, v: VarId) -> bool {
    let mut found = false;
    super::visit::each_expr(e, |x| found |= is_var(x, v));
    found
}

/// `x = x` on a fixed place: what a renamed copy in or out becomes.
fn self_copy(s: &Stmt) -> bool {
    matches!(s, Stmt::Assign { lhs, rhs } if place_root(lhs).is_some() && same_place(lhs, rhs))
}

/// Each parameter's argument in terms of variables that stay (a control
/// inside a control gets its caller's argument).
fn resolved(mut aliases: HashMap<VarId, Expr>) -> HashMap<VarId, Expr> {
    for _ in 0..=aliases.len() {
        let before = aliases.clone();
        let mut changed = false;
        for arg in aliases.values_mut() {
            changed |= substitute(arg, &before);
        }
        if !changed {
            break;
        }
    }
    aliases
}

/// Replaces each renamed variable in `e`; whether it replaced any.
fn substitute(e: &mut Expr, aliases: &HashMap<VarId, Expr>) -> bool {
    if let ExprKind::Var(v) = e.kind {
        if let Some(arg) = aliases.get(&v) {
            *e = arg.clone();
            return true;
        }
        return false;
    }
    let mut changed = false;
    for part in super::visit::expr_parts_mut(e) {
        changed |= substitute(part, aliases);
    }
    changed
}

/// Renames in every place [`super::visit::walk_program`] looks, places
/// included.
fn rename(prog: &mut Program, aliases: &HashMap<VarId, Expr>) {
    let mut in_expr = |e: &mut Expr| {
        substitute(e, aliases);
    };
    rename_stmts(&mut prog.intrinsics.defaults, &mut in_expr);
    for state in prog.parsers.iter_mut().flat_map(|p| p.states.iter_mut()) {
        rename_stmts(&mut state.stmts, &mut in_expr);
        if let Transition::Select { keys, .. } = &mut state.transition {
            keys.iter_mut().for_each(&mut in_expr);
        }
    }
    for c in &mut prog.controls {
        rename_stmts(&mut c.body, &mut in_expr);
    }
    for a in &mut prog.actions {
        rename_stmts(&mut a.body, &mut in_expr);
    }
    for t in &mut prog.tables {
        t.keys.iter_mut().for_each(|k| in_expr(&mut k.expr));
        if let Some(im) = &mut t.implementation {
            im.selector_keys.iter_mut().for_each(&mut in_expr);
            let empty_group = im.empty_group_action.iter_mut().flat_map(|a| &mut a.args);
            empty_group.for_each(&mut in_expr);
        }
        t.default_action.args.iter_mut().for_each(&mut in_expr);
        for entry in &mut t.const_entries {
            entry.action.args.iter_mut().for_each(&mut in_expr);
        }
    }
}

/// Applies `f` to every expression the statements hold, places included,
/// at any depth.
fn rename_stmts(body: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in body {
        match s {
            Stmt::Assign { lhs, rhs } => {
                f(lhs);
                f(rhs);
            }
            Stmt::If { cond, then, other } => {
                f(cond);
                rename_stmts(then, f);
                rename_stmts(other, f);
            }
            Stmt::SwitchValue {
                value,
                cases,
                default,
            } => {
                f(value);
                cases.iter_mut().for_each(|(_, b)| rename_stmts(b, f));
                default.iter_mut().for_each(|b| rename_stmts(b, f));
            }
            Stmt::SwitchAction { cases, default, .. } => {
                cases.iter_mut().for_each(|(_, b)| rename_stmts(b, f));
                default.iter_mut().for_each(|b| rename_stmts(b, f));
            }
            Stmt::Inline { body, .. } | Stmt::Atomic { body, .. } => rename_stmts(body, f),
            Stmt::Loop {
                cond, step, body, ..
            } => {
                f(cond);
                rename_stmts(body, f);
                rename_stmts(step, f);
            }
            Stmt::CallAction { args, .. } => args.iter_mut().for_each(&mut *f),
            Stmt::SetValid { header, .. } | Stmt::Emit { header } => f(header),
            Stmt::Extract {
                header,
                varbit_bits,
            } => {
                f(header);
                varbit_bits.iter_mut().for_each(&mut *f);
            }
            Stmt::StackShift { stack, .. } => f(stack),
            Stmt::Verify { cond, .. } => f(cond),
            Stmt::AdvanceBy { bits } => f(bits),
            Stmt::Eval(e) => f(e),
            Stmt::Apply { .. }
            | Stmt::Return
            | Stmt::Exit
            | Stmt::ExitOnward
            | Stmt::Break { .. }
            | Stmt::Continue { .. }
            | Stmt::Advance { .. } => {}
        }
    }
}

/// How often each variable is named.
#[derive(Default)]
struct Uses(HashMap<VarId, usize>);

impl Visitor for Uses {
    fn expr(&mut self, e: &Expr) -> Descend {
        if let ExprKind::Var(v) = e.kind {
            *self.0.entry(v).or_default() += 1;
        }
        Descend::Yes
    }
}

/// How often each variable is named in parser and control code (not in
/// actions or table keys, which only their control's body reaches).
fn uses_in_bodies(prog: &Program) -> HashMap<VarId, usize> {
    let mut count = Uses::default();
    walk_stmts(&mut count, &prog.intrinsics.defaults);
    for state in prog.parsers.iter().flat_map(|p| &p.states) {
        walk_stmts(&mut count, &state.stmts);
        if let Transition::Select { keys, .. } = &state.transition {
            keys.iter()
                .for_each(|k| super::visit::walk_expr(&mut count, k));
        }
    }
    for c in &prog.controls {
        walk_stmts(&mut count, &c.body);
    }
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::midend::tests::lowered;
    use crate::midend::visit::walk_program;

    fn uses(prog: &Program) -> HashMap<VarId, usize> {
        let mut count = Uses::default();
        walk_program(&mut count, prog);
        count.0
    }

    const PROGRAM: &str = "
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> ty; }
struct hs { eth_t eth; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); transition accept; }
}
control inner(inout eth_t e) {
    action set(bit<16> v) { e.ty = v; }
    table t { key = { e.dst: exact; } actions = { set; } }
    apply { t.apply(); }
}
control outer(inout hs h) {
    inner() i;
    apply { i.apply(h.eth); }
}
control pair(inout hs h, inout eth_t e) {
    apply { e.ty = 1; h.eth.ty = 2; }
}
control twice(inout bit<16> x) {
    apply { x = x + 1; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    outer() o;
    pair() p;
    twice() t2;
    apply {
        omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS;
        o.apply(hdr);
        p.apply(hdr, hdr.eth);
        t2.apply(hdr.eth.ty);
        t2.apply(hdr.eth.ty);
    }
}
control dprs(in hs hdr, packet_out p) {
    apply { p.emit(hdr.eth); }
}
xdp(prs(), sw(), dprs()) main;
";

    fn storage(prog: &Program, p4_name: &str) -> Option<VarStorage> {
        let var = prog.vars.iter().find(|v| v.p4_name == p4_name);
        var.map(|v| v.storage)
    }

    #[test]
    fn nested_controls_applied_once_name_their_arguments() {
        let mut prog = lowered(PROGRAM);
        alias_inline_params(&mut prog);
        assert_eq!(storage(&prog, "sw.o.h"), Some(VarStorage::Aliased));
        assert_eq!(storage(&prog, "sw.o.i.e"), Some(VarStorage::Aliased));
        // The table's key names the packet's header; nothing names the
        // renamed parameters.
        let key = prog.tables.first().and_then(|t| t.keys.first());
        assert!(key.is_some_and(|k| place_root(&k.expr) == Some(prog.headers)));
        let named = uses(&prog);
        let aliased = prog
            .vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.storage == VarStorage::Aliased);
        for (i, v) in aliased {
            assert_eq!(
                named.get(&VarId(i as u32)),
                None,
                "{} is still named",
                v.p4_name
            );
        }
    }

    #[test]
    fn overlapping_arguments_and_second_applies_keep_their_copies() {
        let mut prog = lowered(PROGRAM);
        alias_inline_params(&mut prog);
        assert_eq!(storage(&prog, "sw.p.h"), Some(VarStorage::State));
        assert_eq!(storage(&prog, "sw.p.e"), Some(VarStorage::State));
        assert_eq!(storage(&prog, "sw.t2.x"), Some(VarStorage::State));
    }

    #[test]
    fn programs_with_exit_keep_every_copy() {
        let with_exit = PROGRAM.replace("apply { x = x + 1; }", "apply { x = x + 1; exit; }");
        let mut prog = lowered(&with_exit);
        alias_inline_params(&mut prog);
        assert_eq!(storage(&prog, "sw.o.h"), Some(VarStorage::State));
    }
}
