//! `==` and `!=` on headers, header unions, structs and stacks (spec 8.17,
//! 8.19): element by element, where two headers are equal when both are
//! invalid or both are valid with equal fields. Each side is a place (a
//! computed one is put in a variable first), so it is read once per field
//! without being evaluated again.

use super::Lowerer;
use crate::ir::{BinOp, Expr, ExprKind, Ty, UnOp};
use p4bpf_front::ast::{self, BinaryOp};

pub(super) fn is_aggregate(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Header(_) | Ty::Struct(_) | Ty::Union(_) | Ty::Stack { .. }
    )
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `l == r` (or `!=` when `negate`) of two values of one aggregate type.
    pub(super) fn aggregate_eq(
        &mut self,
        l: Expr,
        r: Expr,
        negate: bool,
        e: &ast::Expr,
    ) -> Option<Expr> {
        let (l, r) = (self.place(l), self.place(r));
        let eq = self.equal(l, r, e)?;
        Some(if negate { not(eq) } else { eq })
    }

    fn equal(&mut self, l: Expr, r: Expr, e: &ast::Expr) -> Option<Expr> {
        if !is_aggregate(&l.ty) {
            return self.combine(BinaryOp::Eq, l, r, Ty::Bool, e);
        }
        let mut pairs: Vec<(Expr, Expr)> = self
            .parts(&l)
            .into_iter()
            .zip(self.parts(&r))
            .map(|((_, a), (_, b))| (a, b))
            .collect();
        pairs.extend(self.varbit_of(&l).zip(self.varbit_of(&r)));
        let mut all: Option<Expr> = None;
        for (a, b) in pairs {
            let eq = self.equal(a, b, e)?;
            all = Some(match all {
                Some(before) => Expr::binary(BinOp::And, before, eq),
                None => eq,
            });
        }
        // Nothing to compare (an empty struct): equal.
        let all = all.unwrap_or(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Bool,
        });
        if !matches!(l.ty, Ty::Header(_)) {
            return Some(all);
        }
        let (lv, rv) = (valid(&l), valid(&r));
        let both_invalid = Expr::binary(BinOp::And, not(lv.clone()), not(rv.clone()));
        let both_valid = Expr::binary(BinOp::And, lv, rv);
        Some(Expr::binary(
            BinOp::Or,
            both_invalid,
            Expr::binary(BinOp::And, both_valid, all),
        ))
    }
}

fn valid(h: &Expr) -> Expr {
    Expr {
        kind: ExprKind::IsValid(Box::new(h.clone())),
        ty: Ty::Bool,
    }
}

fn not(x: Expr) -> Expr {
    Expr {
        kind: ExprKind::Unary {
            op: UnOp::Not,
            operand: Box::new(x),
        },
        ty: Ty::Bool,
    }
}
