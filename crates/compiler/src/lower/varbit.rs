//! `varbit` values in expressions (spec 7.2.4): a header's varbit field
//! as a place, and `==`/`!=`, which compare the sizes and the bits in use.

use super::Lowerer;
use crate::ir::{BinOp, Expr, ExprKind, Ty};

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `l == r` (`!=` when `negate`) of two varbit values. Both sides are
    /// places: the emitter compares their bytes where they are.
    pub(super) fn varbit_eq(&mut self, l: Expr, r: Expr, negate: bool) -> Expr {
        let (l, r) = (self.varbit_place(l), self.varbit_place(r));
        let op = if negate { BinOp::Ne } else { BinOp::Eq };
        Expr::binary(op, l, r)
    }

    /// The varbit field of `header`, when its type has one.
    pub(super) fn varbit_of(&self, header: &Expr) -> Option<Expr> {
        let Ty::Header(agg) = header.ty else {
            return None;
        };
        let v = self.env.aggregates.get(agg.index())?.varbit.as_ref()?;
        Some(Expr {
            ty: Ty::Varbit {
                max_bits: v.max_bits,
            },
            kind: ExprKind::VarbitField {
                base: Box::new(header.clone()),
                agg,
            },
        })
    }

    fn varbit_place(&mut self, x: Expr) -> Expr {
        match x.kind {
            ExprKind::VarbitField { .. } => x,
            _ => self.place(x),
        }
    }
}
