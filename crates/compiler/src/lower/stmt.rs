//! Statements: structured statements with method calls (`extract`,
//! `emit`, `apply`, `setValid`, counters, `verify`) mapped to IR
//! operations; locals become per-packet state variables; `switch` over an
//! action run or over a value.

use super::{Binding, Lowerer};
use crate::ir::{ActionId, Expr, ExprKind, Stmt, Ty, VarStorage};
use p4bpf_front::ast::{self, DeclKind, ExprKind as A, StmtKind, SwitchLabel};
use p4bpf_front::source::Span;
use std::collections::HashMap;

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn block(&mut self, stmts: &'a [ast::Stmt]) -> Vec<Stmt> {
        self.scopes.push(HashMap::new());
        let mut out = vec![];
        for s in stmts {
            self.stmt(s, &mut out);
        }
        self.scopes.pop();
        out
    }

    fn sub_block(&mut self, s: &'a ast::Stmt) -> Vec<Stmt> {
        match &s.kind {
            StmtKind::Block(b) => {
                let mut out = vec![];
                self.block_stmt(b, &mut out);
                out
            }
            _ => self.block(std::slice::from_ref(s)),
        }
    }

    /// Lowers an expression and moves its hoisted table applications to `out`.
    pub(super) fn expr_into(&mut self, e: &'a ast::Expr, out: &mut Vec<Stmt>) -> Option<Expr> {
        let x = self.expr(e);
        out.append(&mut self.pending);
        x
    }

    pub(super) fn stmt(&mut self, s: &'a ast::Stmt, out: &mut Vec<Stmt>) {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let Some(l) = self.expr_into(lhs, out) else {
                    return;
                };
                self.assign_value(l, rhs, out);
            }
            StmtKind::CompoundAssign { op, lhs, rhs } => {
                let Some(l) = self.expr_into(lhs, out) else {
                    return;
                };
                let Some(r) = self.expr_into(rhs, out) else {
                    return;
                };
                // `a op= b` has the type of `a`.
                let ty = l.ty.clone();
                if let Some(value) = self.combine(*op, l.clone(), r, ty, lhs) {
                    self.assign(l, value, s.span, out);
                }
            }
            StmtKind::Call(call) => self.call_stmt(call, out),
            StmtKind::If { cond, then, other } => {
                let Some(cond) = self.expr_into(cond, out) else {
                    return;
                };
                let then = self.sub_block(then);
                let other = other
                    .as_ref()
                    .map(|o| self.sub_block(o))
                    .unwrap_or_default();
                out.push(Stmt::If { cond, then, other });
            }
            StmtKind::Block(b) => self.block_stmt(b, out),
            StmtKind::Switch { expr, cases } => self.switch(expr, cases, s, out),
            StmtKind::Return(None) => out.push(Stmt::Return),
            StmtKind::Return(Some(value)) => {
                let Some(ret) = self.return_var else {
                    self.diags
                        .error(s.span, "`return` with a value outside a function");
                    return;
                };
                let ty = self.prog.var(ret).map(|v| v.ty.clone()).unwrap_or(Ty::Void);
                let Some(value) = self.expr_into(value, out) else {
                    return;
                };
                out.push(Stmt::Assign {
                    lhs: Expr {
                        kind: ExprKind::Var(ret),
                        ty,
                    },
                    rhs: value,
                });
                out.push(Stmt::Return);
            }
            StmtKind::Exit => out.push(Stmt::Exit),
            StmtKind::Decl(d) => self.decl_stmt(d, out),
            StmtKind::Empty => {}
            StmtKind::For {
                init,
                cond,
                update,
                body,
            } => self.for_loop(init, cond.as_ref(), update, body, out),
            StmtKind::ForIn {
                var, range, body, ..
            } => self.for_in(var, range, body, out),
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                out.extend(self.loop_jump(is_break, s.span));
            }
        }
    }

    pub(super) fn assign(&mut self, lhs: Expr, rhs: Expr, at: Span, out: &mut Vec<Stmt>) {
        let same_shape = match (&lhs.ty, &rhs.ty) {
            (Ty::Bits { width: a, .. }, Ty::Bits { width: b, .. }) => a == b,
            (a, b) => a == b,
        };
        if !same_shape {
            self.diags
                .error(at, "cannot assign a value of a different type");
            return;
        }
        let (lhs, rhs) = self.wide_slice_write(lhs, rhs);
        out.append(&mut self.pending);
        let siblings = self.union_siblings(&lhs);
        out.push(Stmt::Assign {
            lhs: lhs.clone(),
            rhs,
        });
        // A valid header assigned to a member of a union invalidates the others.
        if !siblings.is_empty() {
            let then = siblings
                .into_iter()
                .map(|header| Stmt::SetValid {
                    header,
                    valid: false,
                })
                .collect();
            out.push(Stmt::If {
                cond: Expr {
                    kind: ExprKind::IsValid(Box::new(lhs)),
                    ty: Ty::Bool,
                },
                then,
                other: vec![],
            });
        }
    }

    /// The other members of the union `member` belongs to, if it does.
    fn union_siblings(&self, member: &Expr) -> Vec<Expr> {
        let ExprKind::Field { base, field, .. } = &member.kind else {
            return vec![];
        };
        if !matches!(base.ty, Ty::Union(_)) {
            return vec![];
        }
        self.parts(base)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i != field)
            .map(|(_, (_, sibling))| sibling)
            .collect()
    }

    pub(super) fn decl_stmt(&mut self, d: &'a ast::Decl, out: &mut Vec<Stmt>) {
        match &d.kind {
            DeclKind::Variable { name, init, .. } => {
                let Some(ty) = self.env.decl_ty(name, &mut self.diags) else {
                    return;
                };
                let p4 = self.dotted(&name.name);
                let v = self.new_var(p4, ty.clone(), VarStorage::State);
                if let Some(init) = init {
                    let place = Expr {
                        kind: ExprKind::Var(v),
                        ty,
                    };
                    self.assign_value(place, init, out);
                }
                self.bind(&name.name, Binding::Var(v));
            }
            // Uses of a constant read the checker's value.
            DeclKind::Constant { .. } => {}
            _ => self.diags.error(
                d.span,
                "this declaration is not supported here by the eBPF target",
            ),
        }
    }

    fn switch(
        &mut self,
        scrutinee: &'a ast::Expr,
        cases: &'a [ast::SwitchCase],
        s: &ast::Stmt,
        out: &mut Vec<Stmt>,
    ) {
        let table = match &scrutinee.kind {
            A::Member { base, member } if member.name == "action_run" => match &base.kind {
                A::Call { callee, .. } => match &callee.kind {
                    A::Member { base: t, member: m } if m.name == "apply" => self.table_ref(t),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some(table) = table else {
            self.switch_value(scrutinee, cases, s, out);
            return;
        };
        let run = self.new_var(
            format!("{}_action_run", self.dotted("t")),
            Ty::bits(32),
            VarStorage::State,
        );
        out.extend(self.key_setup(table));
        out.push(Stmt::Apply {
            table,
            hit: None,
            action_run: Some(run),
        });
        let mut arms: Vec<(Vec<ActionId>, Vec<Stmt>)> = vec![];
        let mut default = None;
        let mut waiting: Vec<ActionId> = vec![];
        for case in cases {
            match &case.label {
                SwitchLabel::Default(_) => {
                    default = Some(
                        case.body
                            .as_ref()
                            .map(|b| self.block(&b.stmts))
                            .unwrap_or_default(),
                    );
                }
                SwitchLabel::Expr(e) => {
                    let action = match &e.kind {
                        A::Path(p) => match self.lookup(&p.name.name) {
                            Some(Binding::Action(a)) => Some(self.run_by(table, a)),
                            _ => None,
                        },
                        _ => None,
                    };
                    let Some(action) = action else {
                        self.diags.error(e.span, "expected an action of the table");
                        continue;
                    };
                    waiting.push(action);
                    if let Some(body) = &case.body {
                        let stmts = self.block(&body.stmts);
                        arms.push((std::mem::take(&mut waiting), stmts));
                    }
                }
            }
        }
        out.push(Stmt::SwitchAction {
            table,
            action_run: run,
            cases: arms,
            default,
        });
    }

    /// The action `table` runs for `action`: itself, or the wrapper its
    /// `actions` list bound it in (same P4 name).
    fn run_by(&self, table: crate::ir::TableId, action: ActionId) -> ActionId {
        let name = self.prog.action(action).map(|a| a.name.as_str());
        self.prog
            .table(table)
            .and_then(|t| {
                t.actions.iter().find(|a| {
                    **a == action || self.prog.action(**a).map(|x| x.name.as_str()) == name
                })
            })
            .copied()
            .unwrap_or(action)
    }

    /// `switch` over a bit string or enum value: labels are constants.
    fn switch_value(
        &mut self,
        scrutinee: &'a ast::Expr,
        cases: &'a [ast::SwitchCase],
        s: &ast::Stmt,
        out: &mut Vec<Stmt>,
    ) {
        let Some(value) = self.expr_into(scrutinee, out) else {
            return;
        };
        let Some(width) = value.ty.width().filter(|w| *w <= 64) else {
            self.diags.error(
                s.span,
                "switch needs a bit string of at most 64 bits or `t.apply().action_run`",
            );
            return;
        };
        let mut arms = vec![];
        let mut default = None;
        let mut waiting = vec![];
        for case in cases {
            match &case.label {
                SwitchLabel::Default(_) => {
                    default = Some(
                        case.body
                            .as_ref()
                            .map(|b| self.block(&b.stmts))
                            .unwrap_or_default(),
                    )
                }
                SwitchLabel::Expr(e) => {
                    match self.expr(e) {
                        Some(Expr {
                            kind: ExprKind::Int(v),
                            ..
                        }) => waiting.push(v),
                        Some(Expr {
                            kind: ExprKind::Bool(b),
                            ..
                        }) if width == 1 => waiting.push(u8::from(b).into()),
                        _ => {
                            self.diags
                                .error(e.span, "switch labels must be compile-time constants");
                            continue;
                        }
                    }
                    if let Some(body) = &case.body {
                        let stmts = self.block(&body.stmts);
                        arms.push((std::mem::take(&mut waiting), stmts));
                    }
                }
            }
        }
        out.push(Stmt::SwitchValue {
            value,
            cases: arms,
            default,
        });
    }
}
