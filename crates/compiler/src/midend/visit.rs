//! One walk over the IR for every analysis and rewrite of the mid-end.
//!
//! A [`Visitor`] sees each statement and expression before its parts and
//! says whether to go into them; [`walk_program`] visits every place code
//! lives (parser states and their select keys, controls, actions, table
//! keys and bound action arguments). [`rewrite_stmts`] is the mutable
//! twin for passes that change the IR.

use crate::ir::{ActionId, Expr, ExprKind, Program, Stmt, Transition};

/// Whether a walk goes into the parts of what it just visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Descend {
    Yes,
    No,
}

/// What an analysis looks at; both methods default to "look inside".
pub trait Visitor {
    fn stmt(&mut self, _s: &Stmt) -> Descend {
        Descend::Yes
    }
    fn expr(&mut self, _e: &Expr) -> Descend {
        Descend::Yes
    }
}

pub fn walk_stmts<V: Visitor + ?Sized>(v: &mut V, body: &[Stmt]) {
    body.iter().for_each(|s| walk_stmt(v, s));
}

pub fn walk_stmt<V: Visitor + ?Sized>(v: &mut V, s: &Stmt) {
    if v.stmt(s) == Descend::No {
        return;
    }
    for e in stmt_exprs(s) {
        walk_expr(v, e);
    }
    for body in stmt_bodies(s) {
        walk_stmts(v, body);
    }
}

pub fn walk_expr<V: Visitor + ?Sized>(v: &mut V, e: &Expr) {
    if v.expr(e) == Descend::No {
        return;
    }
    for part in expr_parts(e) {
        walk_expr(v, part);
    }
}

/// Every statement and expression of the program.
pub fn walk_program<V: Visitor + ?Sized>(v: &mut V, prog: &Program) {
    // Inputs set before the first step may read other inputs (PNA's copies).
    walk_stmts(v, &prog.intrinsics.defaults);
    for state in prog.parsers.iter().flat_map(|p| &p.states) {
        walk_stmts(v, &state.stmts);
        if let Transition::Select { keys, .. } = &state.transition {
            keys.iter().for_each(|k| walk_expr(v, k));
        }
    }
    for c in &prog.controls {
        walk_stmts(v, &c.body);
    }
    for a in &prog.actions {
        walk_stmts(v, &a.body);
    }
    for t in &prog.tables {
        t.keys.iter().for_each(|k| walk_expr(v, &k.expr));
        if let Some(im) = &t.implementation {
            im.selector_keys.iter().for_each(|k| walk_expr(v, k));
            let empty_group = im.empty_group_action.iter().flat_map(|a| &a.args);
            empty_group.for_each(|a| walk_expr(v, a));
        }
        t.default_action.args.iter().for_each(|a| walk_expr(v, a));
        for entry in &t.const_entries {
            entry.action.args.iter().for_each(|a| walk_expr(v, a));
        }
    }
}

/// Whether any statement in `body`, at any depth, satisfies `pred`.
pub fn any_stmt(body: &[Stmt], pred: impl Fn(&Stmt) -> bool) -> bool {
    struct Finds<F>(F, bool);
    impl<F: Fn(&Stmt) -> bool> Visitor for Finds<F> {
        fn stmt(&mut self, s: &Stmt) -> Descend {
            self.1 |= (self.0)(s);
            if self.1 {
                Descend::No
            } else {
                Descend::Yes
            }
        }
    }
    let mut finds = Finds(pred, false);
    walk_stmts(&mut finds, body);
    finds.1
}

/// Calls `f` on `e` and every expression inside it.
pub fn each_expr(e: &Expr, f: impl FnMut(&Expr)) {
    struct Each<F>(F);
    impl<F: FnMut(&Expr)> Visitor for Each<F> {
        fn expr(&mut self, e: &Expr) -> Descend {
            (self.0)(e);
            Descend::Yes
        }
    }
    walk_expr(&mut Each(f), e);
}

/// The expressions a statement holds directly (not those of nested bodies).
pub fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    match s {
        Stmt::Assign { lhs, rhs } => vec![lhs, rhs],
        Stmt::If { cond, .. } => vec![cond],
        Stmt::SwitchValue { value, .. } => vec![value],
        Stmt::CallAction { args, .. } => args.iter().collect(),
        Stmt::SetValid { header, .. } | Stmt::Emit { header } => vec![header],
        Stmt::Extract {
            header,
            varbit_bits,
        } => std::iter::once(header).chain(varbit_bits).collect(),
        Stmt::Loop { cond, .. } => vec![cond],
        Stmt::StackShift { stack, .. } => vec![stack],
        Stmt::Verify { cond, .. } => vec![cond],
        Stmt::AdvanceBy { bits } => vec![bits],
        Stmt::Eval(e) => vec![e],
        Stmt::Apply { .. }
        | Stmt::SwitchAction { .. }
        | Stmt::Return
        | Stmt::Exit
        | Stmt::ExitOnward
        | Stmt::Advance { .. }
        | Stmt::Break { .. }
        | Stmt::Continue { .. }
        | Stmt::Inline { .. }
        | Stmt::Atomic { .. } => vec![],
    }
}

/// The statement lists nested in a statement, in source order.
pub fn stmt_bodies(s: &Stmt) -> Vec<&[Stmt]> {
    match s {
        Stmt::If { then, other, .. } => vec![then, other],
        Stmt::SwitchAction { cases, default, .. } => cases
            .iter()
            .map(|(_, b)| b.as_slice())
            .chain(default.as_deref())
            .collect(),
        Stmt::SwitchValue { cases, default, .. } => cases
            .iter()
            .map(|(_, b)| b.as_slice())
            .chain(default.as_deref())
            .collect(),
        Stmt::Inline { body, .. } | Stmt::Atomic { body, .. } => vec![body],
        Stmt::Loop { step, body, .. } => vec![body, step],
        _ => vec![],
    }
}

/// The direct sub-expressions of an expression.
pub fn expr_parts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Field { base, .. }
        | ExprKind::VarbitField { base, .. }
        | ExprKind::StackNext(base)
        | ExprKind::StackLast(base)
        | ExprKind::StackIndex { stack: base, .. }
        | ExprKind::IsValid(base)
        | ExprKind::Unary { operand: base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::Cast(base) => vec![base],
        ExprKind::Index { base, index } => vec![base, index],
        ExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        ExprKind::Concat { hi, lo } => vec![hi, lo],
        ExprKind::Mux { cond, then, other } => vec![cond, then, other],
        ExprKind::Builtin { args, .. }
        | ExprKind::ExternCall { args, .. }
        | ExprKind::ExternMethod { args, .. }
        | ExprKind::Wide { args, .. } => args.iter().collect(),
        ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Var(_)
        | ExprKind::ErrorCode(_)
        | ExprKind::Lookahead { .. }
        | ExprKind::PacketLength => vec![],
    }
}

/// The direct sub-expressions of an expression, to change.
pub fn expr_parts_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Field { base, .. }
        | ExprKind::VarbitField { base, .. }
        | ExprKind::StackNext(base)
        | ExprKind::StackLast(base)
        | ExprKind::StackIndex { stack: base, .. }
        | ExprKind::IsValid(base)
        | ExprKind::Unary { operand: base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::Cast(base) => vec![base],
        ExprKind::Index { base, index } => vec![base, index],
        ExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        ExprKind::Concat { hi, lo } => vec![hi, lo],
        ExprKind::Mux { cond, then, other } => vec![cond, then, other],
        ExprKind::Builtin { args, .. }
        | ExprKind::ExternCall { args, .. }
        | ExprKind::ExternMethod { args, .. }
        | ExprKind::Wide { args, .. } => args.iter_mut().collect(),
        ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Var(_)
        | ExprKind::ErrorCode(_)
        | ExprKind::Lookahead { .. }
        | ExprKind::PacketLength => vec![],
    }
}

/// Rewrites every statement list bottom-up: `f` gets each list after its
/// nested lists were rewritten, and may replace, drop or splice statements.
pub fn rewrite_stmts(body: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    for s in body.iter_mut() {
        match s {
            Stmt::If { then, other, .. } => {
                rewrite_stmts(then, f);
                rewrite_stmts(other, f);
            }
            Stmt::SwitchAction { cases, default, .. } => {
                cases.iter_mut().for_each(|(_, b)| rewrite_stmts(b, f));
                default.iter_mut().for_each(|b| rewrite_stmts(b, f));
            }
            Stmt::SwitchValue { cases, default, .. } => {
                cases.iter_mut().for_each(|(_, b)| rewrite_stmts(b, f));
                default.iter_mut().for_each(|b| rewrite_stmts(b, f));
            }
            Stmt::Inline { body, .. } | Stmt::Atomic { body, .. } => rewrite_stmts(body, f),
            Stmt::Loop { step, body, .. } => {
                rewrite_stmts(body, f);
                rewrite_stmts(step, f);
            }
            _ => {}
        }
    }
    f(body);
}

/// Rewrites every expression held by the statements (bottom-up).
pub fn rewrite_exprs(body: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in body.iter_mut() {
        match s {
            Stmt::Assign { lhs, rhs } => {
                rewrite_expr(lhs, f);
                rewrite_expr(rhs, f);
            }
            Stmt::If { cond, then, other } => {
                rewrite_expr(cond, f);
                rewrite_exprs(then, f);
                rewrite_exprs(other, f);
            }
            Stmt::SwitchValue {
                value,
                cases,
                default,
            } => {
                rewrite_expr(value, f);
                cases.iter_mut().for_each(|(_, b)| rewrite_exprs(b, f));
                default.iter_mut().for_each(|b| rewrite_exprs(b, f));
            }
            Stmt::SwitchAction { cases, default, .. } => {
                cases.iter_mut().for_each(|(_, b)| rewrite_exprs(b, f));
                default.iter_mut().for_each(|b| rewrite_exprs(b, f));
            }
            Stmt::Inline { body, .. } | Stmt::Atomic { body, .. } => rewrite_exprs(body, f),
            Stmt::Loop {
                cond, step, body, ..
            } => {
                rewrite_expr(cond, f);
                rewrite_exprs(body, f);
                rewrite_exprs(step, f);
            }
            Stmt::CallAction { args, .. } => args.iter_mut().for_each(|a| rewrite_expr(a, f)),
            Stmt::Verify { cond, .. } => rewrite_expr(cond, f),
            Stmt::AdvanceBy { bits } => rewrite_expr(bits, f),
            Stmt::Eval(e) => rewrite_expr(e, f),
            // Places (headers, stacks) are names, not values to rewrite.
            Stmt::SetValid { .. }
            | Stmt::Extract { .. }
            | Stmt::Emit { .. }
            | Stmt::StackShift { .. }
            | Stmt::Apply { .. }
            | Stmt::Return
            | Stmt::Exit
            | Stmt::ExitOnward
            | Stmt::Break { .. }
            | Stmt::Continue { .. }
            | Stmt::Advance { .. } => {}
        }
    }
}

/// Rewrites `e` and every expression inside it (bottom-up).
pub fn rewrite_expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Field { base, .. }
        | ExprKind::VarbitField { base, .. }
        | ExprKind::StackNext(base)
        | ExprKind::StackLast(base)
        | ExprKind::StackIndex { stack: base, .. }
        | ExprKind::IsValid(base)
        | ExprKind::Unary { operand: base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::Cast(base) => rewrite_expr(base, f),
        ExprKind::Index { base, index } => {
            rewrite_expr(base, f);
            rewrite_expr(index, f);
        }
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Concat { hi: lhs, lo: rhs } => {
            rewrite_expr(lhs, f);
            rewrite_expr(rhs, f);
        }
        ExprKind::Mux { cond, then, other } => {
            rewrite_expr(cond, f);
            rewrite_expr(then, f);
            rewrite_expr(other, f);
        }
        ExprKind::Builtin { args, .. }
        | ExprKind::ExternCall { args, .. }
        | ExprKind::ExternMethod { args, .. }
        | ExprKind::Wide { args, .. } => args.iter_mut().for_each(|a| rewrite_expr(a, f)),
        ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Var(_)
        | ExprKind::ErrorCode(_)
        | ExprKind::Lookahead { .. }
        | ExprKind::PacketLength => {}
    }
    f(e);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Ty, VarId};

    fn var(i: u32) -> Expr {
        Expr {
            kind: ExprKind::Var(VarId(i)),
            ty: Ty::bits(8),
        }
    }

    #[derive(Default)]
    struct Vars(Vec<u32>);
    impl Visitor for Vars {
        fn expr(&mut self, e: &Expr) -> Descend {
            if let ExprKind::Var(v) = e.kind {
                self.0.push(v.0);
            }
            Descend::Yes
        }
    }

    fn nested() -> Vec<Stmt> {
        vec![Stmt::If {
            cond: var(1),
            then: vec![Stmt::SwitchValue {
                value: var(2),
                cases: vec![(vec![], vec![Stmt::Eval(var(3))])],
                default: Some(vec![Stmt::Assign {
                    lhs: var(4),
                    rhs: var(5),
                }]),
            }],
            other: vec![Stmt::Inline {
                name: "c".into(),
                body: vec![Stmt::Eval(var(6))],
            }],
        }]
    }

    #[test]
    fn the_walk_reaches_every_nested_body_in_order() {
        let mut v = Vars::default();
        walk_stmts(&mut v, &nested());
        assert_eq!(v.0, [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_visitor_can_stop_the_descent() {
        struct Top(usize);
        impl Visitor for Top {
            fn stmt(&mut self, _: &Stmt) -> Descend {
                self.0 += 1;
                Descend::No
            }
        }
        let mut v = Top(0);
        walk_stmts(&mut v, &nested());
        assert_eq!(v.0, 1);
    }

    #[test]
    fn searches_reach_nested_statements_and_expressions() {
        assert!(any_stmt(&nested(), |s| matches!(s, Stmt::Assign { .. })));
        assert!(!any_stmt(&nested(), |s| matches!(s, Stmt::Exit)));
        let mut seen = 0;
        each_expr(
            &Expr {
                kind: ExprKind::Mux {
                    cond: Box::new(var(1)),
                    then: Box::new(var(2)),
                    other: Box::new(var(3)),
                },
                ty: Ty::bits(8),
            },
            |_| seen += 1,
        );
        assert_eq!(seen, 4);
    }

    #[test]
    fn rewrites_reach_nested_lists_and_expressions() {
        let mut body = nested();
        rewrite_exprs(&mut body, &mut |e| {
            if let ExprKind::Var(v) = &mut e.kind {
                v.0 += 10;
            }
        });
        let mut lists = 0;
        rewrite_stmts(&mut body, &mut |list| {
            lists += 1;
            list.retain(|s| !matches!(s, Stmt::Eval(_)));
        });
        let mut v = Vars::default();
        walk_stmts(&mut v, &body);
        assert_eq!(v.0, [11, 12, 14, 15]);
        // then, the case, the default, other, the inline body, the top.
        assert_eq!(lists, 6);
    }
}

/// The actions `CallAction` statements name, in the order walked.
#[derive(Default)]
pub struct CalledActions(pub Vec<ActionId>);

impl Visitor for CalledActions {
    fn stmt(&mut self, s: &Stmt) -> Descend {
        if let Stmt::CallAction { action, .. } = s {
            self.0.push(*action);
        }
        Descend::Yes
    }
}
