//! Expressions: resolves names, gives every expression its concrete type
//! (untyped literals take the type the context expects) and maps method
//! and extern calls to IR operations. A table application inside an
//! expression (`t.apply().hit`) is hoisted into [`Lowerer::pending`].

use super::types::to_bits;
use super::{Binding, Lowerer};
use crate::ir::{BinOp, Expr, ExprKind, Ty, UnOp};
use num_bigint::{BigInt, BigUint};
use p4bpf_front::ast::{self, BinaryOp, ExprKind as A, UnaryOp};

fn int(value: BigUint, ty: Ty) -> Expr {
    Expr {
        kind: ExprKind::Int(value),
        ty,
    }
}

fn is_untyped_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        A::Int(lit) => lit.width.is_none(),
        A::Unary { operand, .. } => is_untyped_literal(operand),
        _ => false,
    }
}

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn expr(&mut self, e: &'a ast::Expr, expected: Option<&Ty>) -> Option<Expr> {
        match &e.kind {
            A::Bool(b) => Some(Expr {
                kind: ExprKind::Bool(*b),
                ty: Ty::Bool,
            }),
            A::Int(lit) => {
                if lit.width.is_some_and(|(w, _)| w == 0 || w > 2048) {
                    self.diags.error(e.span, "unsupported literal width");
                    return None;
                }
                let ty = match (lit.width, expected) {
                    (Some((width, signed)), _) => Ty::Bits { width, signed },
                    (None, Some(t @ Ty::Bits { .. })) => t.clone(),
                    _ => Ty::bits(32),
                };
                let width = ty.width().unwrap_or(32);
                Some(int(to_bits(&lit.value, width), ty))
            }
            A::Path(p) => self.path(&p.name.name, e),
            A::Member { base, member } => self.member(base, member, e),
            A::Index { base, index } => {
                let base = self.expr(base, None)?;
                let Ty::Stack { elem, size } = base.ty else {
                    self.diags
                        .error(e.span, "only header stacks can be indexed");
                    return None;
                };
                let i = self.env.eval_u32(index, &mut self.diags)?;
                if i >= size {
                    self.diags.error(
                        index.span,
                        format!("index {i} is out of bounds of a stack of {size}"),
                    );
                    return None;
                }
                let ty = self.prog_agg_ty(elem);
                Some(Expr {
                    kind: ExprKind::Index {
                        base: Box::new(base),
                        index: Box::new(int(i.into(), Ty::bits(32))),
                    },
                    ty,
                })
            }
            A::Slice { base, hi, lo } => {
                let base = self.expr(base, None)?;
                let hi = self.env.eval_u32(hi, &mut self.diags)?;
                let lo = self.env.eval_u32(lo, &mut self.diags)?;
                let width = base.ty.width().unwrap_or(0);
                if hi < lo || hi >= width || width > 64 {
                    self.diags.error(
                        e.span,
                        format!("slice [{hi}:{lo}] does not fit a bit<{width}>"),
                    );
                    return None;
                }
                Some(Expr {
                    kind: ExprKind::Slice {
                        base: Box::new(base),
                        hi,
                        lo,
                    },
                    ty: Ty::bits(hi - lo + 1),
                })
            }
            A::Call { callee, args, .. } => self.call_expr(callee, args, e),
            A::Unary { op, operand } => {
                let operand = self.expr(operand, expected)?;
                let (op, ty) = match op {
                    UnaryOp::Plus => return Some(operand),
                    UnaryOp::Not => (UnOp::Not, Ty::Bool),
                    UnaryOp::Neg => (UnOp::Neg, operand.ty.clone()),
                    UnaryOp::Complement => (UnOp::Complement, operand.ty.clone()),
                };
                self.check_scalar(&operand, e)?;
                Some(Expr {
                    kind: ExprKind::Unary {
                        op,
                        operand: Box::new(operand),
                    },
                    ty,
                })
            }
            A::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, expected, e),
            A::Ternary { cond, then, other } => {
                let cond = self.expr(cond, Some(&Ty::Bool))?;
                let then = self.expr(then, expected)?;
                let other = self.expr(other, Some(&then.ty))?;
                let ty = then.ty.clone();
                Some(Expr {
                    kind: ExprKind::Mux {
                        cond: Box::new(cond),
                        then: Box::new(then),
                        other: Box::new(other),
                    },
                    ty,
                })
            }
            A::Cast { ty, expr } => {
                let ty = self.env.resolve(ty, &mut self.diags)?;
                let inner = self.expr(expr, Some(&ty))?;
                if let (ExprKind::Int(v), Some(w)) = (&inner.kind, ty.width()) {
                    return Some(int(to_bits(&BigInt::from(v.clone()), w), ty));
                }
                self.check_scalar(&inner, e)?;
                Some(Expr {
                    kind: ExprKind::Cast(Box::new(inner)),
                    ty,
                })
            }
            _ => {
                self.diags.error(
                    e.span,
                    "this expression is not supported by the eBPF target",
                );
                None
            }
        }
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

    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &'a ast::Expr,
        rhs: &'a ast::Expr,
        expected: Option<&Ty>,
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        let comparison = matches!(
            op,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        );
        let operand_hint = if comparison || matches!(op, BinaryOp::And | BinaryOp::Or) {
            None
        } else {
            expected
        };
        // Type the typed side first so an untyped literal can follow it.
        let (l, r) = if is_untyped_literal(lhs) && !is_untyped_literal(rhs) {
            let r = self.expr(rhs, operand_hint)?;
            let l = self.expr(lhs, Some(&r.ty))?;
            (l, r)
        } else {
            let l = self.expr(lhs, operand_hint)?;
            let shift = matches!(op, BinaryOp::Shl | BinaryOp::Shr);
            let r = self.expr(rhs, if shift { None } else { Some(&l.ty) })?;
            (l, r)
        };
        self.combine(op, l, r, e)
    }

    /// The typed binary operation `l op r`.
    pub(super) fn combine(
        &mut self,
        op: BinaryOp,
        l: Expr,
        r: Expr,
        e: &ast::Expr,
    ) -> Option<Expr> {
        if op == BinaryOp::Concat {
            let width = l.ty.width().unwrap_or(0) + r.ty.width().unwrap_or(0);
            // Constants fold at any width (wide keyset values are written so).
            if let (ExprKind::Int(a), ExprKind::Int(b)) = (&l.kind, &r.kind) {
                let lo_width = r.ty.width().unwrap_or(0);
                return Some(int((a << lo_width) | b, Ty::bits(width)));
            }
            if width > 64 {
                self.diags.error(
                    e.span,
                    "concatenation wider than 64 bits is not supported by the eBPF target",
                );
                return None;
            }
            return Some(Expr {
                kind: ExprKind::Concat {
                    hi: Box::new(l),
                    lo: Box::new(r),
                },
                ty: Ty::bits(width),
            });
        }
        let wide_eq =
            matches!(op, BinaryOp::Eq | BinaryOp::Ne) && l.ty.width().is_some_and(|w| w > 64);
        if !wide_eq {
            self.check_scalar(&l, e)?;
            self.check_scalar(&r, e)?;
        }
        let (op, ty) = match op {
            BinaryOp::Mul => (BinOp::Mul, l.ty.clone()),
            BinaryOp::Div => (BinOp::Div, l.ty.clone()),
            BinaryOp::Mod => (BinOp::Mod, l.ty.clone()),
            BinaryOp::Add => (BinOp::Add, l.ty.clone()),
            BinaryOp::Sub => (BinOp::Sub, l.ty.clone()),
            BinaryOp::AddSat => (BinOp::AddSat, l.ty.clone()),
            BinaryOp::SubSat => (BinOp::SubSat, l.ty.clone()),
            BinaryOp::Shl => (BinOp::Shl, l.ty.clone()),
            BinaryOp::Shr => (BinOp::Shr, l.ty.clone()),
            BinaryOp::BitAnd => (BinOp::BitAnd, l.ty.clone()),
            BinaryOp::BitOr => (BinOp::BitOr, l.ty.clone()),
            BinaryOp::BitXor => (BinOp::BitXor, l.ty.clone()),
            BinaryOp::Le => (BinOp::Le, Ty::Bool),
            BinaryOp::Ge => (BinOp::Ge, Ty::Bool),
            BinaryOp::Lt => (BinOp::Lt, Ty::Bool),
            BinaryOp::Gt => (BinOp::Gt, Ty::Bool),
            BinaryOp::Eq => (BinOp::Eq, Ty::Bool),
            BinaryOp::Ne => (BinOp::Ne, Ty::Bool),
            BinaryOp::And => (BinOp::And, Ty::Bool),
            BinaryOp::Or => (BinOp::Or, Ty::Bool),
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
            Some(Binding::Const(value, ty)) => {
                Some(int(to_bits(&value, ty.width().unwrap_or(32)), ty))
            }
            _ => match self.env.consts.get(name).cloned() {
                Some((value, ty)) => {
                    if ty == Ty::Bool {
                        return Some(Expr {
                            kind: ExprKind::Bool(value != BigInt::from(0)),
                            ty,
                        });
                    }
                    Some(int(to_bits(&value, ty.width().unwrap_or(32)), ty))
                }
                None => {
                    self.diags.error(
                        e.span,
                        format!("`{name}` is not a value the eBPF target can use here"),
                    );
                    None
                }
            },
        }
    }

    fn member(
        &mut self,
        base: &'a ast::Expr,
        member: &ast::Ident,
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        let base_name = match &base.kind {
            A::Path(p) => Some(p.name.name.as_str()),
            A::Type(t) if matches!(t.kind, ast::TypeRefKind::Error) => Some("error"),
            _ => None,
        };
        if base_name == Some("error") {
            return match self.env.error_code(&member.name) {
                Some(code) => Some(Expr {
                    kind: ExprKind::ErrorCode(code),
                    ty: Ty::Error,
                }),
                None => {
                    self.diags
                        .error(member.span, format!("unknown error `{}`", member.name));
                    None
                }
            };
        }
        if let Some(name) = base_name {
            if self.lookup(name).is_none() {
                if let Some(info) = self.env.enums.get(name) {
                    let width = info.width;
                    return match info.members.get(&member.name).cloned() {
                        Some(v) => Some(int(v, Ty::bits(width))),
                        None => {
                            self.diags.error(
                                member.span,
                                format!("`{name}` has no member `{}`", member.name),
                            );
                            None
                        }
                    };
                }
            }
        }
        if let A::Call {
            callee, type_args, ..
        } = &base.kind
        {
            if let A::Member {
                base: table,
                member: apply,
            } = &callee.kind
            {
                if apply.name == "apply" && matches!(member.name.as_str(), "hit" | "miss") {
                    return self.apply_hit(table, member.name == "miss", e);
                }
                if apply.name == "lookahead" {
                    return self.lookahead_field(type_args, &member.name, e);
                }
            }
        }
        let b = self.expr(base, None)?;
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
                "size" => Some(int(size.into(), Ty::bits(32))),
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
                self.diags.error(e.span, format!("no field `{name}`"));
                None
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
