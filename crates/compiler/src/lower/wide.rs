//! Operations on bit strings wider than 64 bits. C has no integer that
//! wide, so each operation becomes an assignment of an
//! [`ExprKind::Wide`] to a fresh variable, hoisted into
//! [`Lowerer::pending`] before the expression that uses it, with places as
//! wide operands (a constant or a computed value is put in a variable
//! first). Comparisons, slices and casts to 64 bits or less read places
//! directly. Supported: `+`, `-`, bitwise operators, `~`, unary `-`,
//! shifts by constants, comparisons, slices (of any width),
//! concatenation and casts;
//! the rest is refused naming the operator.

use super::Lowerer;
use crate::ir::{BinOp, Expr, ExprKind, Stmt, Ty, VarStorage, WideOp};
use num_bigint::BigUint;
use num_traits::ToPrimitive;
use p4bpf_front::ast::{self, BinaryOp};

pub(super) fn is_wide(ty: &Ty) -> bool {
    ty.width().is_some_and(|w| w > 64)
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `l op r` when an operand or the result is wider than 64 bits.
    pub(super) fn wide_binary(
        &mut self,
        op: BinaryOp,
        l: Expr,
        r: Expr,
        ty: Ty,
        e: &ast::Expr,
    ) -> Option<Expr> {
        if matches!(l.ty, Ty::Bits { signed: true, .. }) {
            self.diags.error(
                e.span,
                "signed arithmetic wider than 64 bits is not supported by the eBPF target",
            );
            return None;
        }
        let compare = match op {
            BinaryOp::Eq => Some(BinOp::Eq),
            BinaryOp::Ne => Some(BinOp::Ne),
            BinaryOp::Lt => Some(BinOp::Lt),
            BinaryOp::Le => Some(BinOp::Le),
            BinaryOp::Gt => Some(BinOp::Gt),
            BinaryOp::Ge => Some(BinOp::Ge),
            _ => None,
        };
        if let Some(op) = compare {
            let (lhs, rhs) = (self.place(l), self.place(r));
            return Some(Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                ty,
            });
        }
        let wide_op = match op {
            BinaryOp::Add => WideOp::Add,
            BinaryOp::Sub => WideOp::Sub,
            BinaryOp::Mul => WideOp::Mul,
            BinaryOp::BitAnd => WideOp::BitAnd,
            BinaryOp::BitOr => WideOp::BitOr,
            BinaryOp::BitXor => WideOp::BitXor,
            BinaryOp::Shl | BinaryOp::Shr => {
                let Some(k) = constant_u32(&r) else {
                    self.diags.error(e.span, "shifts of values wider than 64 bits need a constant amount on the eBPF target");
                    return None;
                };
                let op = if op == BinaryOp::Shl {
                    WideOp::Shl(k)
                } else {
                    WideOp::Shr(k)
                };
                let x = self.place(l);
                return Some(self.wide_temp(op, vec![x], ty));
            }
            BinaryOp::Concat => return Some(self.wide_concat(l, r, ty)),
            other => {
                let width = l.ty.width().unwrap_or(0);
                self.diags.error(
                    e.span,
                    format!("`{}` on bit<{width}> is not supported by the eBPF target (wider than 64 bits: +, -, *, bitwise operators, shifts by constants, comparisons, slices, concatenation and casts)", refused_symbol(other)),
                );
                return None;
            }
        };
        let (a, b) = (self.place(l), self.place(r));
        Some(self.wide_temp(wide_op, vec![a, b], ty))
    }

    /// `~x` or `-x` on a wide value.
    pub(super) fn wide_unary(&mut self, complement: bool, x: Expr, ty: Ty) -> Expr {
        let x = self.place(x);
        if complement {
            return self.wide_temp(WideOp::Complement, vec![x], ty);
        }
        let zero = self.place(Expr::int(BigUint::default(), ty.clone()));
        self.wide_temp(WideOp::Sub, vec![zero, x], ty)
    }

    /// `(ty) x` where `x` or `ty` is wide.
    pub(super) fn wide_cast(&mut self, x: Expr, ty: Ty) -> Expr {
        if is_wide(&ty) {
            let from = if is_wide(&x.ty) { self.place(x) } else { x };
            return self.wide_temp(WideOp::Widen, vec![from], ty);
        }
        Expr {
            kind: ExprKind::Cast(Box::new(self.place(x))),
            ty,
        }
    }

    /// `base[hi:lo]` of more than 64 bits: shifted down, then cut to `ty`.
    pub(super) fn wide_slice(&mut self, base: Expr, lo: u32, ty: Ty) -> Expr {
        let base_ty = base.ty.clone();
        let mut x = self.place(base);
        if lo > 0 {
            x = self.wide_temp(WideOp::Shr(lo), vec![x], base_ty);
        }
        self.wide_temp(WideOp::Widen, vec![x], ty)
    }

    /// `base[hi:lo] = value` when `base` is wider than 64 bits, as
    /// `base = (base & keep) | (widen(value) << lo)`: C has no integer to
    /// mask it in, so the write becomes wide operations on the whole
    /// base. Any other assignment comes back as it was.
    pub(super) fn wide_slice_write(&mut self, lhs: Expr, value: Expr) -> (Expr, Expr) {
        let ExprKind::Slice { base, hi, lo } = &lhs.kind else {
            return (lhs, value);
        };
        let (base, hi, lo) = outermost_slice(base, *hi, *lo);
        let Some(width) = base.ty.width().filter(|_| is_wide(&base.ty)) else {
            return (lhs, value);
        };
        let ty = base.ty.clone();
        let ones = |bits: u32| (BigUint::from(1u8) << bits) - 1u8;
        let keep = ones(width) ^ (ones(hi - lo + 1) << lo);
        let keep = self.place(Expr::int(keep, ty.clone()));
        let kept = self.wide_temp(WideOp::BitAnd, vec![base.clone(), keep], ty.clone());
        let mut moved = self.wide_cast(value, ty.clone());
        if lo > 0 {
            moved = self.wide_temp(WideOp::Shl(lo), vec![moved], ty.clone());
        }
        let merged = Expr {
            kind: ExprKind::Wide {
                op: WideOp::BitOr,
                args: vec![kept, moved],
            },
            ty,
        };
        (base, merged)
    }

    /// `hi ++ lo` of a wide result: `(widen(hi) << |lo|) | widen(lo)`.
    fn wide_concat(&mut self, hi: Expr, lo: Expr, ty: Ty) -> Expr {
        let lo_width = lo.ty.width().unwrap_or(0);
        let hi = self.wide_cast(hi, ty.clone());
        let shifted = self.wide_temp(WideOp::Shl(lo_width), vec![hi], ty.clone());
        let lo = self.wide_cast(lo, ty.clone());
        self.wide_temp(WideOp::BitOr, vec![shifted, lo], ty)
    }

    /// `x` itself when it is a place, else a variable holding it.
    pub(super) fn place(&mut self, x: Expr) -> Expr {
        if matches!(
            x.kind,
            ExprKind::Var(_) | ExprKind::Field { .. } | ExprKind::Index { .. }
        ) {
            return x;
        }
        let temp = self.wide_var(x.ty.clone());
        self.pending.push(Stmt::Assign {
            lhs: temp.clone(),
            rhs: x,
        });
        temp
    }

    fn wide_temp(&mut self, op: WideOp, args: Vec<Expr>, ty: Ty) -> Expr {
        let temp = self.wide_var(ty.clone());
        self.pending.push(Stmt::Assign {
            lhs: temp.clone(),
            rhs: Expr {
                kind: ExprKind::Wide { op, args },
                ty,
            },
        });
        temp
    }

    fn wide_var(&mut self, ty: Ty) -> Expr {
        let name = format!("{}.wide{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, ty.clone(), VarStorage::State);
        Expr {
            kind: ExprKind::Var(v),
            ty,
        }
    }
}

/// `x[h1:l1][h2:l2]...` as the slice `x[l1 + h2 : l1 + l2]` of the
/// first base that is not a slice.
fn outermost_slice(base: &Expr, hi: u32, lo: u32) -> (Expr, u32, u32) {
    match &base.kind {
        ExprKind::Slice {
            base: inner,
            lo: inner_lo,
            ..
        } => outermost_slice(inner, hi + inner_lo, lo + inner_lo),
        _ => (base.clone(), hi, lo),
    }
}

/// The operators [`Lowerer::wide_binary`] refuses, as written.
fn refused_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Div => "/",
        BinaryOp::Mod => "%",
        BinaryOp::AddSat => "|+|",
        BinaryOp::SubSat => "|-|",
        _ => "this operator",
    }
}

fn constant_u32(x: &Expr) -> Option<u32> {
    match &x.kind {
        ExprKind::Int(v) => v.to_u32(),
        _ => None,
    }
}
