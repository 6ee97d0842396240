//! Loops (P4_16 1.2.4): `for (init; cond; update)`, `for (x in lo .. hi)`
//! and `for (x in stack)` become [`Stmt::Loop`] with a label unique in the
//! program, which `break` and `continue` name. A range's bounds are
//! evaluated once; its variable stops at `hi` without stepping past it, so
//! a range ending at the type's largest value still ends.

use super::{Binding, Lowerer};
use crate::ir::{BinOp, Expr, ExprKind, Stmt, Ty, VarStorage};
use p4bpf_front::ast;
use std::collections::HashMap;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `for (init; cond; update) body`.
    pub(super) fn for_loop(
        &mut self,
        init: &'a [ast::Stmt],
        cond: Option<&'a ast::Expr>,
        update: &'a [ast::Stmt],
        body: &'a ast::Stmt,
        out: &mut Vec<Stmt>,
    ) {
        self.scopes.push(HashMap::new());
        for s in init {
            self.stmt(s, out);
        }
        let cond = match cond {
            Some(c) => self.loop_condition(c),
            None => Some(Expr {
                kind: ExprKind::Bool(true),
                ty: Ty::Bool,
            }),
        };
        if let Some(cond) = cond {
            let label = self.loop_label();
            self.loops.push(label.clone());
            let body = self.block(std::slice::from_ref(body));
            let mut step = vec![];
            for s in update {
                self.stmt(s, &mut step);
            }
            self.loops.pop();
            out.push(Stmt::Loop {
                label,
                cond,
                step,
                body,
            });
        }
        self.scopes.pop();
    }

    /// `for (x in range) body`: a range `lo .. hi` or a header stack.
    pub(super) fn for_in(
        &mut self,
        var: &'a ast::Ident,
        range: &'a ast::Expr,
        body: &'a ast::Stmt,
        out: &mut Vec<Stmt>,
    ) {
        let Some(ty) = self.env.decl_ty(var, &mut self.diags) else {
            return;
        };
        self.scopes.push(HashMap::new());
        let v = self.new_var(self.dotted(&var.name), ty.clone(), VarStorage::State);
        self.bind(&var.name, Binding::Var(v));
        let x = Expr {
            kind: ExprKind::Var(v),
            ty,
        };
        let label = self.loop_label();
        let lowered = match &range.kind {
            ast::ExprKind::Range { lo, hi } => self.range_loop(&x, lo, hi, &label, out),
            _ => self.stack_loop(&x, range, out),
        };
        if let Some((cond, step, first)) = lowered {
            self.loops.push(label.clone());
            let mut stmts = first;
            stmts.extend(self.block(std::slice::from_ref(body)));
            self.loops.pop();
            out.push(Stmt::Loop {
                label,
                cond,
                step,
                body: stmts,
            });
        }
        self.scopes.pop();
    }

    /// `x` from `lo` to `hi` inclusive: condition, step, nothing first.
    fn range_loop(
        &mut self,
        x: &Expr,
        lo: &'a ast::Expr,
        hi: &'a ast::Expr,
        label: &str,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, Vec<Stmt>, Vec<Stmt>)> {
        let lo = self.expr_into(lo, out)?;
        let hi = self.expr_into(hi, out)?;
        let last = self.loop_var(x.ty.clone());
        out.push(assign(&last, hi));
        out.push(assign(x, lo));
        let cond = Expr::binary(BinOp::Le, x.clone(), last.clone());
        let step = vec![
            Stmt::If {
                cond: Expr::binary(BinOp::Eq, x.clone(), last),
                then: vec![Stmt::Break {
                    label: label.to_string(),
                }],
                other: vec![],
            },
            assign(x, Expr::binary(BinOp::Add, x.clone(), one(&x.ty))),
        ];
        Some((cond, step, vec![]))
    }

    /// `x` as each element of a stack in turn: condition, step, and the
    /// copy of the element into `x` that starts each round.
    fn stack_loop(
        &mut self,
        x: &Expr,
        written: &'a ast::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, Vec<Stmt>, Vec<Stmt>)> {
        let stack = self.expr_into(written, out)?;
        let Ty::Stack { size, .. } = stack.ty else {
            self.diags.error(
                written.span,
                "`for (x in e)` needs a range or a header stack",
            );
            return None;
        };
        let index = self.loop_var(Ty::bits(32));
        out.push(assign(&index, Expr::int(0u32, Ty::bits(32))));
        let cond = Expr::binary(BinOp::Lt, index.clone(), Expr::int(size, Ty::bits(32)));
        let step = vec![assign(
            &index,
            Expr::binary(BinOp::Add, index.clone(), Expr::int(1u32, Ty::bits(32))),
        )];
        let element = Expr {
            kind: ExprKind::Index {
                base: Box::new(stack),
                index: Box::new(index),
            },
            ty: x.ty.clone(),
        };
        Some((cond, step, vec![assign(x, element)]))
    }

    /// A loop condition, which cannot need statements before it.
    fn loop_condition(&mut self, written: &'a ast::Expr) -> Option<Expr> {
        let mut before = vec![];
        let cond = self.expr_into(written, &mut before)?;
        if !before.is_empty() {
            self.diags.error(
                written.span,
                "a loop condition cannot apply a table or call a function on the eBPF target",
            );
            return None;
        }
        Some(cond)
    }

    /// `break` or `continue` of the innermost loop.
    pub(super) fn loop_jump(
        &mut self,
        is_break: bool,
        at: p4bpf_front::source::Span,
    ) -> Option<Stmt> {
        let Some(label) = self.loops.last().cloned() else {
            self.diags
                .error(at, "`break` and `continue` belong inside a loop");
            return None;
        };
        Some(if is_break {
            Stmt::Break { label }
        } else {
            Stmt::Continue { label }
        })
    }

    fn loop_label(&mut self) -> String {
        self.c_name(&format!("{}_loop", self.prefix))
    }

    fn loop_var(&mut self, ty: Ty) -> Expr {
        let name = format!("{}.loop{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, ty.clone(), VarStorage::State);
        Expr {
            kind: ExprKind::Var(v),
            ty,
        }
    }
}

fn assign(place: &Expr, value: Expr) -> Stmt {
    Stmt::Assign {
        lhs: place.clone(),
        rhs: value,
    }
}

fn one(ty: &Ty) -> Expr {
    Expr::int(1u32, ty.clone())
}
