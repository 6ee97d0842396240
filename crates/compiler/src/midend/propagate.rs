//! Constant and copy propagation in straight-line code: after `x = 5;` or
//! `x = y;` of scalar variables, later reads of `x` in the same statement
//! list read `5` or `y`, until `x` (or `y`) is assigned again. Anything else
//! that may write variables (an action call, a table, an extern, a nested
//! body) ends what is known, so the pass never needs to know who aliases
//! whom. It matters where clang cannot do it: state in the per-CPU scratch
//! map, whose loads clang must keep.

use super::visit::rewrite_stmts;
use crate::ir::{Expr, ExprKind, Program, Stmt, Ty, VarId, VarStorage};
use std::collections::{BTreeMap, BTreeSet};

/// Propagates in every statement list of `prog`.
pub fn propagate(prog: &mut Program) {
    // `out` parameters point at other variables: a write through one may
    // change any of them.
    let pointers: BTreeSet<VarId> = (0..prog.vars.len())
        .map(|i| VarId(i as u32))
        .filter(|v| {
            prog.var(*v)
                .is_some_and(|v| v.storage == VarStorage::ActionOutParam)
        })
        .collect();
    for body in super::bodies_mut(prog) {
        rewrite_stmts(body, &mut |list| propagate_list(list, &pointers));
    }
}

/// What each variable is known to hold: a constant or another variable.
type Known = BTreeMap<VarId, ExprKind>;

fn propagate_list(list: &mut [Stmt], pointers: &BTreeSet<VarId>) {
    let mut known = Known::new();
    for s in list.iter_mut() {
        match s {
            // An extern may take its arguments by pointer and write them.
            Stmt::Assign { rhs, .. } if calls_extern(rhs) => known.clear(),
            Stmt::Assign { lhs, rhs } => {
                substitute(rhs, &known);
                forget_writes_to(lhs, &mut known, pointers);
                if let Some((v, value)) = fact(lhs, rhs, pointers) {
                    known.insert(v, value);
                }
            }
            // Conditions are read before the bodies run.
            Stmt::If { cond: read, .. } | Stmt::SwitchValue { value: read, .. } => {
                if !calls_extern(read) {
                    substitute(read, &known);
                }
                known.clear();
            }
            Stmt::Verify { cond, .. } if !calls_extern(cond) => substitute(cond, &known),
            _ => known.clear(),
        }
    }
}

/// What `lhs = rhs` makes known: a scalar variable (not an `out`
/// parameter, whose target other writes may change) holding a constant or
/// a copy of another such variable.
fn fact(lhs: &Expr, rhs: &Expr, pointers: &BTreeSet<VarId>) -> Option<(VarId, ExprKind)> {
    let ExprKind::Var(v) = lhs.kind else {
        return None;
    };
    if pointers.contains(&v) || lhs.ty != rhs.ty || !scalar(&lhs.ty) {
        return None;
    }
    match &rhs.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) => Some((v, rhs.kind.clone())),
        ExprKind::Var(w) if *w != v && !pointers.contains(w) => Some((v, rhs.kind.clone())),
        _ => None,
    }
}

fn calls_extern(e: &Expr) -> bool {
    let mut found = false;
    super::visit::each_expr(e, |x| {
        found |= matches!(x.kind, ExprKind::ExternCall { .. })
    });
    found
}

/// Values C holds in one register; wider bit strings are byte arrays
/// whose operations take places, not constants.
fn scalar(ty: &Ty) -> bool {
    match ty {
        Ty::Bits { width, .. } => *width <= 64,
        Ty::Bool => true,
        _ => false,
    }
}

/// Replaces reads of known variables in `e`.
fn substitute(e: &mut Expr, known: &Known) {
    if known.is_empty() {
        return;
    }
    super::visit::rewrite_expr(e, &mut |x| {
        if let ExprKind::Var(v) = x.kind {
            if let Some(value) = known.get(&v) {
                x.kind = value.clone();
            }
        }
    });
}

/// After a write to `lhs`: nothing known about the variable it writes (or
/// about copies of it) holds any more.
fn forget_writes_to(lhs: &Expr, known: &mut Known, pointers: &BTreeSet<VarId>) {
    let mut root = lhs;
    loop {
        match &root.kind {
            ExprKind::Field { base, .. }
            | ExprKind::Slice { base, .. }
            | ExprKind::Index { base, .. } => root = base,
            ExprKind::StackNext(base) | ExprKind::StackLast(base) => root = base,
            _ => break,
        }
    }
    match root.kind {
        ExprKind::Var(v) if !pointers.contains(&v) => {
            known.remove(&v);
            known.retain(|_, value| !matches!(value, ExprKind::Var(w) if *w == v));
        }
        _ => known.clear(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::BinOp;
    use num_bigint::BigUint;

    fn var(i: u32) -> Expr {
        Expr {
            kind: ExprKind::Var(VarId(i)),
            ty: Ty::bits(16),
        }
    }
    fn int(v: u32) -> Expr {
        Expr {
            kind: ExprKind::Int(BigUint::from(v)),
            ty: Ty::bits(16),
        }
    }
    fn add(a: Expr, b: Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary {
                op: BinOp::Add,
                lhs: Box::new(a),
                rhs: Box::new(b),
            },
            ty: Ty::bits(16),
        }
    }
    fn assign(lhs: Expr, rhs: Expr) -> Stmt {
        Stmt::Assign { lhs, rhs }
    }
    fn rhs(s: &Stmt) -> String {
        match s {
            Stmt::Assign { rhs, .. } => format!("{:?}", rhs.kind),
            _ => String::new(),
        }
    }

    #[test]
    fn constants_and_copies_reach_later_reads() {
        let mut body = vec![
            assign(var(1), int(7)),
            assign(var(2), var(3)),
            assign(var(4), add(var(1), var(2))),
        ];
        propagate_list(&mut body, &BTreeSet::new());
        let last = rhs(&body[2]);
        assert!(
            last.contains("Int(7)") && last.contains("VarId(3)"),
            "{last}"
        );
    }

    #[test]
    fn a_new_assignment_ends_what_was_known() {
        let mut body = vec![
            assign(var(1), int(7)),
            assign(var(2), var(1)),
            assign(var(1), add(var(1), int(1))),
            assign(var(5), var(1)),
            assign(var(6), var(2)),
        ];
        propagate_list(&mut body, &BTreeSet::new());
        // var 2 holds 7 (it was copied while var 1 was 7).
        assert!(rhs(&body[1]).contains("Int(7)"));
        assert!(
            rhs(&body[2]).contains("Int(7)"),
            "the read before the write"
        );
        assert!(rhs(&body[3]).contains("VarId(1)"), "{}", rhs(&body[3]));
        assert!(rhs(&body[4]).contains("Int(7)"), "{}", rhs(&body[4]));
    }

    #[test]
    fn copies_of_a_reassigned_variable_are_forgotten() {
        let mut body = vec![
            assign(var(2), var(3)),
            assign(var(3), int(1)),
            assign(var(4), var(2)),
        ];
        propagate_list(&mut body, &BTreeSet::new());
        assert!(rhs(&body[2]).contains("VarId(2)"), "{}", rhs(&body[2]));
    }

    #[test]
    fn a_write_through_an_out_parameter_ends_everything_known() {
        let mut body = vec![
            assign(var(1), int(7)),
            assign(var(2), var(3)),
            assign(var(9), int(0)),
            assign(var(4), add(var(1), var(2))),
            assign(var(5), var(9)),
        ];
        propagate_list(&mut body, &BTreeSet::from([VarId(9)]));
        let sum = rhs(&body[3]);
        assert!(
            sum.contains("VarId(1)") && sum.contains("VarId(2)"),
            "{sum}"
        );
        assert!(
            rhs(&body[4]).contains("VarId(9)"),
            "what it points at may change"
        );
    }

    #[test]
    fn calls_and_nested_bodies_end_what_is_known() {
        let mut body = vec![
            assign(var(1), int(7)),
            Stmt::Apply {
                table: crate::ir::TableId(0),
                hit: None,
                action_run: None,
            },
            assign(var(4), var(1)),
            assign(var(1), int(8)),
            Stmt::If {
                cond: var(1),
                then: vec![],
                other: vec![],
            },
            assign(var(5), var(1)),
        ];
        propagate_list(&mut body, &BTreeSet::new());
        assert!(rhs(&body[2]).contains("VarId(1)"));
        assert!(matches!(&body[4], Stmt::If { cond, .. } if matches!(cond.kind, ExprKind::Int(_))));
        assert!(rhs(&body[5]).contains("VarId(1)"));
    }
}
