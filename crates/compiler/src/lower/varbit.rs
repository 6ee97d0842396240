//! `varbit` values in expressions (spec 7.2.4): a header's varbit field
//! as a place, `==`/`!=`, which compare the sizes and the bits in use, and
//! a varbit in the fields a checksum covers.

use super::hash::Algorithm;
use super::Lowerer;
use crate::ir::{BinOp, Expr, ExprKind, HashAlgorithm, Ty};
use p4bpf_front::source::Span;

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

    /// Whether the hash of `fields` can take the bytes of their varbit
    /// values: the emitter hashes a buffer sized for the maximum, zeros
    /// past the bytes in use, which only sums of 16-bit words ignore, so
    /// the varbit must be last and start on a byte.
    pub(super) fn hashable_varbit(
        &mut self,
        fields: &[Expr],
        algorithm: &Algorithm,
        at: Span,
    ) -> bool {
        let Some(i) = fields
            .iter()
            .position(|f| matches!(f.ty, Ty::Varbit { .. }))
        else {
            return true;
        };
        let before: u32 = fields.iter().take(i).filter_map(|f| f.ty.width()).sum();
        let sums = matches!(
            algorithm,
            Algorithm::Hash(HashAlgorithm::Csum16 | HashAlgorithm::Xor16)
        );
        let why = if !sums {
            "the eBPF target hashes a `varbit` value only by csum16 or xor16"
        } else if i + 1 != fields.len() {
            "the eBPF target hashes a `varbit` value only as the last of the fields"
        } else if !before.is_multiple_of(8) {
            "the eBPF target hashes a `varbit` value only when the fields before it are whole bytes"
        } else {
            return true;
        };
        self.diags.error(at, why);
        false
    }

    fn varbit_place(&mut self, x: Expr) -> Expr {
        match x.kind {
            ExprKind::VarbitField { .. } => x,
            _ => self.place(x),
        }
    }
}
