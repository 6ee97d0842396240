//! Expressions: maps each checked expression to a typed IR expression.
//! Types and compile-time values are the checker's ([`CheckedProgram`]):
//! an expression whose value is known becomes a constant of its checked
//! type, everything else is lowered node by node with the type the checker
//! recorded. Method and extern calls become IR operations; a table
//! application inside an expression (`t.apply().hit`) is hoisted into
//! [`Lowerer::pending`].
//!
//! [`CheckedProgram`]: p4bpf_front::check::CheckedProgram

use super::compare::is_aggregate;
use super::wide::is_wide;
use super::{Binding, Lowerer};
use crate::ir::{BinOp, Expr, ExprKind, Stmt, Ty, UnOp, VarStorage};
use num_traits::ToPrimitive;
use p4bpf_front::ast::{self, BinaryOp, ExprKind as A, UnaryOp};
use p4bpf_front::check::Value;

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn expr(&mut self, e: &'a ast::Expr) -> Option<Expr> {
        if let Some(constant) = self.constant(e) {
            return Some(constant);
        }
        // A constant of struct or list type used as a value.
        if matches!(self.env.value(e), Some(Value::List(_) | Value::Struct(_))) {
            return self.initialized_temp(e);
        }
        match &e.kind {
            A::Path(p) => self.path(&p.name.name, e),
            A::Member { base, member } => self.member(base, member, e),
            A::Index { base, index } => {
                let base = self.expr(base)?;
                if matches!(base.ty, Ty::Struct(_)) {
                    // A tuple, or an array of non-headers, held as a struct
                    // with one field per element.
                    if self.env.value(index).is_none() {
                        self.diags.error(index.span, "an index into a tuple or an array of non-headers must be known at compile time on the eBPF target");
                        return None;
                    }
                    let i = self.env.const_u32(index, &mut self.diags)?;
                    return self.field(base, &format!("f{i}"), e);
                }
                let Ty::Stack { elem, size } = base.ty else {
                    self.diags
                        .error(e.span, "only header stacks and tuples can be indexed");
                    return None;
                };
                let ty = self.prog_agg_ty(elem);
                if self.env.value(index).is_none() {
                    let index = self.expr(index)?;
                    self.check_scalar(&index, e)?;
                    return Some(Expr {
                        kind: ExprKind::Index {
                            base: Box::new(base),
                            index: Box::new(index),
                        },
                        ty,
                    });
                }
                let i = self.env.const_u32(index, &mut self.diags)?;
                if i >= size {
                    self.diags.error(
                        index.span,
                        format!("index {i} is out of bounds of a stack of {size}"),
                    );
                    return None;
                }
                Some(Expr {
                    kind: ExprKind::Index {
                        base: Box::new(base),
                        index: Box::new(Expr::int(i, Ty::bits(32))),
                    },
                    ty,
                })
            }
            A::Slice { base, hi, lo } => {
                let hi = self.env.const_u32(hi, &mut self.diags)?;
                let lo = self.env.const_u32(lo, &mut self.diags)?;
                if let Some(bits) = self.wide_lookahead_slice(base, hi, lo, e) {
                    return Some(bits);
                }
                let base = self.expr(base)?;
                self.slice(base, hi, lo, e)
            }
            // `base[lo +: width]` with a constant `lo` is `base[lo + width - 1 : lo]`.
            A::IndexedSlice { base, lo, width } => {
                let base = self.expr(base)?;
                let Some(lo) = self
                    .env
                    .value(lo)
                    .and_then(|v| v.int())
                    .and_then(|v| v.to_u32())
                else {
                    self.diags.error(
                        lo.span,
                        "`e[lo +: width]` needs a constant `lo` on the eBPF target",
                    );
                    return None;
                };
                let width = self.env.const_u32(width, &mut self.diags)?;
                self.slice(base, (lo + width).checked_sub(1)?, lo, e)
            }
            A::Call { callee, args, .. } => self.call_expr(callee, args, e),
            A::Unary { op, operand } => {
                let operand = self.expr(operand)?;
                let op = match op {
                    UnaryOp::Plus => return Some(operand),
                    UnaryOp::Not => UnOp::Not,
                    UnaryOp::Neg => UnOp::Neg,
                    UnaryOp::Complement => UnOp::Complement,
                };
                let ty = self.env.expr_ty(e, &mut self.diags)?;
                if is_wide(&ty) && op != UnOp::Not {
                    return Some(self.wide_unary(op == UnOp::Complement, operand, ty));
                }
                self.check_scalar(&operand, e)?;
                Some(Expr {
                    kind: ExprKind::Unary {
                        op,
                        operand: Box::new(operand),
                    },
                    ty,
                })
            }
            A::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                lhs,
                rhs,
            } => self.short_circuit(*op, lhs, rhs, e),
            A::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs)?;
                let before_rhs = self.pending.len();
                let r = self.expr(rhs)?;
                let l = self.read_before(l, before_rhs);
                let ty = self.env.expr_ty(e, &mut self.diags)?;
                self.combine(*op, l, r, ty, e)
            }
            A::Ternary { cond, then, other } => {
                let ty = self.env.expr_ty(e, &mut self.diags)?;
                self.conditional(cond, then, other, ty)
            }
            A::Cast { expr, .. } => {
                let ty = self.env.expr_ty(e, &mut self.diags)?;
                let inner = self.expr(expr)?;
                if is_wide(&ty) || is_wide(&inner.ty) {
                    return Some(self.wide_cast(inner, ty));
                }
                self.check_scalar(&inner, e)?;
                Some(Expr {
                    kind: ExprKind::Cast(Box::new(inner)),
                    ty,
                })
            }
            A::List(_) | A::StructInit { .. } | A::Invalid => self.initialized_temp(e),
            other => {
                let what = match other {
                    A::String(_) => "a string",
                    A::This => "`this`",
                    A::Type(_) => "a type",
                    A::DefaultValue => "`...`",
                    A::DontCare => "`_`",
                    _ => "a keyset",
                };
                self.diags.error(
                    e.span,
                    format!("{what} is not a value the eBPF target can compute here"),
                );
                None
            }
        }
    }

    /// `p.lookahead<bit<N>>()[hi:lo]` with N over 64 bits: the slice's own
    /// bits, looked at where they lie (`hi` is the N-1-hi'th bit ahead),
    /// with all N bits required in the packet. `None` for other slices.
    fn wide_lookahead_slice(
        &mut self,
        base: &ast::Expr,
        hi: u32,
        lo: u32,
        e: &ast::Expr,
    ) -> Option<Expr> {
        let A::Call { callee, .. } = &base.kind else {
            return None;
        };
        let A::Member { member, .. } = &callee.kind else {
            return None;
        };
        if member.name != "lookahead" {
            return None;
        }
        let Some(Ty::Bits { width, .. }) = self.env.expr_ty(base, &mut self.diags) else {
            return None;
        };
        if width <= 64 || hi < lo || hi >= width || hi - lo >= 64 {
            return None;
        }
        Some(Expr {
            kind: ExprKind::Lookahead {
                bit_offset: width - 1 - hi,
                check_bytes: width.div_ceil(8),
            },
            ty: self.env.expr_ty(e, &mut self.diags)?,
        })
    }

    /// `base[hi:lo]`, checked against the base's width.
    fn slice(&mut self, base: Expr, hi: u32, lo: u32, e: &ast::Expr) -> Option<Expr> {
        let width = base.ty.width().unwrap_or(0);
        if hi < lo || hi >= width {
            self.diags.error(
                e.span,
                format!("slice [{hi}:{lo}] does not fit a bit<{width}>"),
            );
            return None;
        }
        let ty = self.env.expr_ty(e, &mut self.diags)?;
        if hi - lo >= 64 {
            return Some(self.wide_slice(base, lo, ty));
        }
        let base = if is_wide(&base.ty) {
            self.place(base)
        } else {
            base
        };
        Some(Expr {
            kind: ExprKind::Slice {
                base: Box::new(base),
                hi,
                lo,
            },
            ty,
        })
    }

    /// `e` as a constant when the checker knows its value and it is a
    /// scalar (integer, bool, enum member, error).
    fn constant(&mut self, e: &ast::Expr) -> Option<Expr> {
        let value = self.env.value(e)?;
        if matches!(value, Value::List(_) | Value::Struct(_) | Value::String(_)) {
            return None;
        }
        if let Value::Bool(b) = value {
            return Some(Expr {
                kind: ExprKind::Bool(*b),
                ty: Ty::Bool,
            });
        }
        if let Value::Member { ty, member } = value {
            if ty == "error" {
                let code = self.env.error_code(member)?;
                return Some(Expr {
                    kind: ExprKind::ErrorCode(code),
                    ty: Ty::Error,
                });
            }
        }
        let ty = self.env.expr_ty(e, &mut self.diags)?;
        let width = ty.width()?;
        let bits = self.env.scalar_bits(value, width)?;
        Some(Expr::int(bits, ty))
    }

    fn check_scalar(&mut self, x: &Expr, at: &ast::Expr) -> Option<()> {
        match x.ty.width() {
            Some(w) if w <= 64 => Some(()),
            Some(w) => {
                self.diags.error(at.span, format!("arithmetic on bit<{w}> is not supported by the eBPF target (64 bits at most)"));
                None
            }
            None => {
                self.diags.error(at.span, "expected a bit string or bool");
                None
            }
        }
    }

    /// `l`, read before the statements pending from `mark` on ran: when
    /// the right operand calls something (a function, an action, a table,
    /// an extern), P4 evaluates left to right, so the left operand's value
    /// is kept in a temporary the call cannot change (`x + f(x)` with `f`
    /// writing `x`). Plain assignments (temporaries the right operand
    /// builds) need no copy.
    fn read_before(&mut self, l: Expr, mark: usize) -> Expr {
        let calls = self
            .pending
            .get(mark..)
            .unwrap_or_default()
            .iter()
            .any(|s| !matches!(s, Stmt::Assign { .. } | Stmt::SetValid { .. }));
        if !calls || matches!(l.kind, ExprKind::Int(_) | ExprKind::Bool(_)) {
            return l;
        }
        let name = format!("{}.left{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, l.ty.clone(), VarStorage::State);
        let temp = Expr {
            kind: ExprKind::Var(v),
            ty: l.ty.clone(),
        };
        self.pending.insert(
            mark,
            Stmt::Assign {
                lhs: temp.clone(),
                rhs: l,
            },
        );
        temp
    }

    /// The binary operation `l op r` of checked type `ty`.
    pub(super) fn combine(
        &mut self,
        op: BinaryOp,
        l: Expr,
        r: Expr,
        ty: Ty,
        e: &ast::Expr,
    ) -> Option<Expr> {
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne) && is_aggregate(&l.ty) {
            return self.aggregate_eq(l, r, op == BinaryOp::Ne, e);
        }
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne) && matches!(l.ty, Ty::Varbit { .. }) {
            return Some(self.varbit_eq(l, r, op == BinaryOp::Ne));
        }
        // `++` takes its right operand's bits, not its sign (P4_16 8.5).
        let r = if op == BinaryOp::Concat {
            bits_of(r)
        } else {
            r
        };
        if is_wide(&ty) || is_wide(&l.ty) || is_wide(&r.ty) {
            return self.wide_binary(op, l, r, ty, e);
        }
        if op == BinaryOp::Concat {
            return Some(Expr {
                kind: ExprKind::Concat {
                    hi: Box::new(l),
                    lo: Box::new(r),
                },
                ty,
            });
        }
        self.check_scalar(&l, e)?;
        self.check_scalar(&r, e)?;
        let op = match op {
            BinaryOp::Mul => BinOp::Mul,
            BinaryOp::Div => BinOp::Div,
            BinaryOp::Mod => BinOp::Mod,
            BinaryOp::Add => BinOp::Add,
            BinaryOp::Sub => BinOp::Sub,
            BinaryOp::AddSat => BinOp::AddSat,
            BinaryOp::SubSat => BinOp::SubSat,
            BinaryOp::Shl => BinOp::Shl,
            BinaryOp::Shr => BinOp::Shr,
            BinaryOp::BitAnd => BinOp::BitAnd,
            BinaryOp::BitOr => BinOp::BitOr,
            BinaryOp::BitXor => BinOp::BitXor,
            BinaryOp::Le => BinOp::Le,
            BinaryOp::Ge => BinOp::Ge,
            BinaryOp::Lt => BinOp::Lt,
            BinaryOp::Gt => BinOp::Gt,
            BinaryOp::Eq => BinOp::Eq,
            BinaryOp::Ne => BinOp::Ne,
            BinaryOp::And => BinOp::And,
            BinaryOp::Or => BinOp::Or,
            BinaryOp::Concat => return None,
        };
        Some(Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            ty,
        })
    }

    fn path(&mut self, name: &str, e: &ast::Expr) -> Option<Expr> {
        match self.lookup(name) {
            Some(Binding::Var(v)) => {
                let ty = self.prog.var(v).map(|v| v.ty.clone()).unwrap_or(Ty::Void);
                Some(Expr {
                    kind: ExprKind::Var(v),
                    ty,
                })
            }
            _ => {
                self.diags.error(
                    e.span,
                    format!("`{name}` is not a value the eBPF target can use here"),
                );
                None
            }
        }
    }

    fn member(
        &mut self,
        base: &'a ast::Expr,
        member: &ast::Ident,
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        if let A::Call { callee, .. } = &base.kind {
            if let A::Member {
                base: table,
                member: apply,
            } = &callee.kind
            {
                if apply.name == "apply" && matches!(member.name.as_str(), "hit" | "miss") {
                    return self.apply_hit(table, member.name == "miss", e);
                }
                if apply.name == "lookahead" {
                    return self.lookahead_field(base, &member.name, e);
                }
            }
        }
        let b = self.expr(base)?;
        self.field(b, &member.name, e)
    }

    pub(super) fn field(&mut self, base: Expr, name: &str, e: &ast::Expr) -> Option<Expr> {
        if let Ty::Stack { elem, size } = base.ty {
            let elem_ty = self.prog_agg_ty(elem);
            let b = Box::new(base);
            return match name {
                "next" => Some(Expr {
                    kind: ExprKind::StackNext(b),
                    ty: elem_ty,
                }),
                "last" => Some(Expr {
                    kind: ExprKind::StackLast(b),
                    ty: elem_ty,
                }),
                "nextIndex" => Some(Expr {
                    kind: ExprKind::StackIndex { stack: b, minus: 0 },
                    ty: Ty::bits(32),
                }),
                "lastIndex" => Some(Expr {
                    kind: ExprKind::StackIndex { stack: b, minus: 1 },
                    ty: Ty::bits(32),
                }),
                "size" => Some(Expr::int(size, Ty::bits(32))),
                _ => {
                    self.diags
                        .error(e.span, format!("header stacks have no member `{name}`"));
                    None
                }
            };
        }
        let agg = match base.ty {
            Ty::Header(a) | Ty::Struct(a) | Ty::Union(a) => a,
            _ => {
                self.diags
                    .error(e.span, format!("cannot take field `{name}` of this value"));
                return None;
            }
        };
        let found = self.env.aggregates.get(agg.index()).and_then(|g| {
            g.fields
                .iter()
                .position(|f| f.name == name)
                .map(|i| (i, g.fields[i].ty.clone()))
        });
        match found {
            Some((field, ty)) => Some(Expr {
                kind: ExprKind::Field {
                    base: Box::new(base),
                    agg,
                    field,
                },
                ty,
            }),
            None => {
                let varbit = self
                    .env
                    .aggregates
                    .get(agg.index())
                    .and_then(|g| g.varbit.as_ref())
                    .filter(|v| v.name == name);
                match varbit {
                    Some(v) => Some(Expr {
                        ty: Ty::Varbit {
                            max_bits: v.max_bits,
                        },
                        kind: ExprKind::VarbitField {
                            base: Box::new(base),
                            agg,
                        },
                    }),
                    None => {
                        self.diags.error(e.span, format!("no field `{name}`"));
                        None
                    }
                }
            }
        }
    }

    pub(super) fn prog_agg_ty(&self, id: crate::ir::AggId) -> Ty {
        match self.env.aggregates.get(id.index()).map(|a| a.kind) {
            Some(crate::ir::AggKind::Union) => Ty::Union(id),
            _ => Ty::Header(id),
        }
    }
}

/// `x` read as the unsigned bit string of its width.
fn bits_of(x: Expr) -> Expr {
    match x.ty {
        Ty::Bits {
            width,
            signed: true,
        } => Expr {
            kind: ExprKind::Cast(Box::new(x)),
            ty: Ty::Bits {
                width,
                signed: false,
            },
        },
        _ => x,
    }
}
