//! Constant folding of conditions and dead code: what another pass made
//! constant (`isValid()` of a header that is never valid) disappears with
//! the branch it no longer takes, and statements after `return` or `exit`
//! in the same list are dropped. Arithmetic is left to clang, which folds
//! it in the C.

use crate::ir::{BinOp, Expr, ExprKind, Stmt, UnOp};

/// Folds `!c`, `c && x`, `c || x` and `c ? a : b` for a constant `c`.
pub fn fold_expr(e: &mut Expr) {
    let constant = |e: &Expr| match e.kind {
        ExprKind::Bool(b) => Some(b),
        _ => None,
    };
    let folded = match &mut e.kind {
        ExprKind::Unary {
            op: UnOp::Not,
            operand,
        } => constant(operand).map(|b| ExprKind::Bool(!b)),
        ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::And | BinOp::Or) => {
            let absorbing = *op == BinOp::Or;
            match (constant(lhs), constant(rhs)) {
                (Some(b), _) if b == absorbing => Some(ExprKind::Bool(b)),
                (Some(_), _) => Some(std::mem::replace(&mut rhs.kind, ExprKind::Bool(false))),
                // `x && false` still evaluates `x`: only pure operands fold.
                (None, Some(b)) if b != absorbing => {
                    Some(std::mem::replace(&mut lhs.kind, ExprKind::Bool(false)))
                }
                _ => None,
            }
        }
        ExprKind::Mux { cond, then, other } => constant(cond).map(|b| {
            let kept = if b { then } else { other };
            std::mem::replace(&mut kept.kind, ExprKind::Bool(false))
        }),
        _ => None,
    };
    if let Some(kind) = folded {
        e.kind = kind;
    }
}

/// Replaces each `if` with a constant condition by the branch it takes,
/// and drops what follows a `return` or `exit` in the same list.
pub fn fold_branches(body: &mut Vec<Stmt>) {
    let mut out = Vec::with_capacity(body.len());
    for s in body.drain(..) {
        match s {
            Stmt::If {
                cond:
                    Expr {
                        kind: ExprKind::Bool(b),
                        ..
                    },
                then,
                other,
            } => out.extend(if b { then } else { other }),
            s => out.push(s),
        }
    }
    if let Some(end) = out
        .iter()
        .position(|s| matches!(s, Stmt::Return | Stmt::Exit))
    {
        out.truncate(end + 1);
    }
    *body = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Ty, VarId};

    fn boolean(b: bool) -> Expr {
        Expr {
            kind: ExprKind::Bool(b),
            ty: Ty::Bool,
        }
    }
    fn var(i: u32) -> Expr {
        Expr {
            kind: ExprKind::Var(VarId(i)),
            ty: Ty::Bool,
        }
    }
    fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty: Ty::Bool,
        }
    }
    fn folded(mut e: Expr) -> ExprKind {
        fold_expr(&mut e);
        e.kind
    }

    #[test]
    fn constant_operands_decide_and_and_or() {
        assert!(matches!(
            folded(binary(BinOp::And, boolean(false), var(1))),
            ExprKind::Bool(false)
        ));
        assert!(matches!(
            folded(binary(BinOp::Or, boolean(true), var(1))),
            ExprKind::Bool(true)
        ));
        assert!(matches!(
            folded(binary(BinOp::And, boolean(true), var(1))),
            ExprKind::Var(VarId(1))
        ));
        assert!(matches!(
            folded(binary(BinOp::Or, var(2), boolean(false))),
            ExprKind::Var(VarId(2))
        ));
        // `x && false` keeps x's evaluation.
        assert!(matches!(
            folded(binary(BinOp::And, var(2), boolean(false))),
            ExprKind::Binary { .. }
        ));
    }

    #[test]
    fn a_constant_condition_keeps_one_branch() {
        let mut body = vec![
            Stmt::If {
                cond: boolean(false),
                then: vec![Stmt::Exit],
                other: vec![Stmt::Eval(var(3))],
            },
            Stmt::Eval(var(4)),
        ];
        fold_branches(&mut body);
        assert!(matches!(body.as_slice(), [Stmt::Eval(a), Stmt::Eval(b)]
            if matches!(a.kind, ExprKind::Var(VarId(3))) && matches!(b.kind, ExprKind::Var(VarId(4)))));
    }

    #[test]
    fn code_after_return_or_exit_is_dead() {
        let mut body = vec![Stmt::Eval(var(1)), Stmt::Return, Stmt::Eval(var(2))];
        fold_branches(&mut body);
        assert_eq!(body.len(), 2);
        let mut taken = vec![
            Stmt::If {
                cond: boolean(true),
                then: vec![Stmt::Exit],
                other: vec![],
            },
            Stmt::Eval(var(2)),
        ];
        fold_branches(&mut taken);
        assert!(matches!(taken.as_slice(), [Stmt::Exit]));
    }
}
