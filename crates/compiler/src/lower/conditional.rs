//! Operands evaluated only under a condition: the right side of `&&` and
//! `||`, the branches of `?:`. When such an operand needs statements
//! before it (a table application for `t.apply().hit`, an inlined
//! function, a hoisted temporary), the result goes through a variable and
//! those statements run inside an `if`, only when the operand is
//! evaluated, as P4's short-circuit semantics require.

use super::Lowerer;
use crate::ir::{Expr, ExprKind, Stmt, Ty, UnOp, VarStorage};
use p4bpf_front::ast::{self, BinaryOp};

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `lhs && rhs` or `lhs || rhs`.
    pub(super) fn short_circuit(
        &mut self,
        op: BinaryOp,
        lhs: &'a ast::Expr,
        rhs: &'a ast::Expr,
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        let l = self.expr(lhs)?;
        let (r, before_r) = self.expr_apart(rhs)?;
        if before_r.is_empty() {
            return self.combine(op, l, r, Ty::Bool, e);
        }
        let result = self.condition_var(Ty::Bool);
        self.pending.push(Stmt::Assign {
            lhs: result.clone(),
            rhs: l,
        });
        let mut then = before_r;
        then.push(Stmt::Assign {
            lhs: result.clone(),
            rhs: r,
        });
        // `&&` looks at the right side when the left is true, `||` when false.
        let cond = if op == BinaryOp::And {
            result.clone()
        } else {
            Expr {
                kind: ExprKind::Unary {
                    op: UnOp::Not,
                    operand: Box::new(result.clone()),
                },
                ty: Ty::Bool,
            }
        };
        self.pending.push(Stmt::If {
            cond,
            then,
            other: vec![],
        });
        Some(result)
    }

    /// `cond ? then : other` of type `ty`.
    pub(super) fn conditional(
        &mut self,
        cond: &'a ast::Expr,
        then: &'a ast::Expr,
        other: &'a ast::Expr,
        ty: Ty,
    ) -> Option<Expr> {
        let c = self.expr(cond)?;
        let (a, before_a) = self.expr_apart(then)?;
        let (b, before_b) = self.expr_apart(other)?;
        if before_a.is_empty() && before_b.is_empty() {
            return Some(Expr {
                kind: ExprKind::Mux {
                    cond: Box::new(c),
                    then: Box::new(a),
                    other: Box::new(b),
                },
                ty,
            });
        }
        let result = self.condition_var(ty);
        let branch = |mut before: Vec<Stmt>, value: Expr| {
            before.push(Stmt::Assign {
                lhs: result.clone(),
                rhs: value,
            });
            before
        };
        let stmt = Stmt::If {
            cond: c,
            then: branch(before_a, a),
            other: branch(before_b, b),
        };
        self.pending.push(stmt);
        Some(result)
    }

    /// `e` lowered with the statements it needs kept apart from `pending`.
    fn expr_apart(&mut self, e: &'a ast::Expr) -> Option<(Expr, Vec<Stmt>)> {
        let outer = std::mem::take(&mut self.pending);
        let x = self.expr(e);
        let own = std::mem::replace(&mut self.pending, outer);
        Some((x?, own))
    }

    fn condition_var(&mut self, ty: Ty) -> Expr {
        let name = format!("{}.cond{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, ty.clone(), VarStorage::State);
        Expr {
            kind: ExprKind::Var(v),
            ty,
        }
    }
}
