//! The cell an indexed counter or meter uses. PSA's and PNA's
//! `Counter<W, S>` and `Meter<S>` take an index of any bit width `S`,
//! while the target's cells are an array with a 32-bit key. The P4
//! specifications define indexes 0 to size-1 only, so an index of more
//! than 32 bits is compared with the size before it is narrowed: a wide
//! index that is out of range becomes `size`, which no cell has (the
//! operation then does nothing, as for any index past the end), instead
//! of wrapping onto a cell its low bits would name.

use super::wide::is_wide;
use super::Lowerer;
use crate::ir::{BinOp, Expr, ExprKind, ExternId, Ty};

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `index` as the 32-bit key of a cell of `instance`.
    pub(super) fn cell_index(&mut self, instance: ExternId, index: Expr) -> Expr {
        let width = index.ty.width().unwrap_or(0);
        if width <= 32 {
            return index;
        }
        let size = self.prog.extern_instance(instance).map_or(0, |x| x.size);
        // Evaluated once: the comparison and the narrowing both read it.
        let index = self.place(index);
        let unsigned = if is_wide(&index.ty) {
            index
        } else {
            // A negative index is a large one, out of range like it.
            index.cast(Ty::bits(width))
        };
        let size_of_index = Expr::int(size, unsigned.ty.clone());
        let bound = if is_wide(&unsigned.ty) {
            self.place(size_of_index)
        } else {
            size_of_index
        };
        let in_range = Expr {
            kind: ExprKind::Binary {
                op: BinOp::Lt,
                lhs: Box::new(unsigned.clone()),
                rhs: Box::new(bound),
            },
            ty: Ty::Bool,
        };
        let narrowed = Expr {
            kind: ExprKind::Cast(Box::new(unsigned)),
            ty: Ty::bits(32),
        };
        Expr::mux(in_range, narrowed, Expr::int(size, Ty::bits(32)))
    }
}
