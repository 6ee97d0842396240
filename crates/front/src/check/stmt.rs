//! Statements: assignments (to l-values, with implicit casts), calls,
//! conditionals, `switch` (on `action_run` or on a value), loops, `return`
//! against the enclosing function's type, and local declarations.

use super::env::Symbol;
use super::types::{Type, TypeDefKind};
use super::{Checker, TableInfo};
use crate::ast::{Block, ExprKind, Stmt, StmtKind, SwitchLabel};

impl Checker<'_> {
    pub(super) fn block(&mut self, block: &Block) {
        for s in &block.stmts {
            self.stmt(s);
        }
    }

    /// A nested block: its declarations end with it.
    fn nested_block(&mut self, block: &Block) {
        let ctx = self.ctx.clone();
        self.scoped(ctx, |c| c.block(block));
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let lt = self.expr(lhs);
                self.expr(rhs);
                if matches!(lhs.kind, ExprKind::DontCare) {
                    return;
                }
                if !self.is_lvalue(lhs) {
                    let text = self.unit.slice(lhs.span).to_string();
                    self.error(lhs.span, format!("cannot assign to `{text}`: it is not a variable, field or `out`/`inout` parameter"));
                    return;
                }
                if !self.assignable_type(&lt) {
                    let shown = self.show(&lt);
                    self.error(
                        lhs.span,
                        format!("cannot assign to a value of type `{shown}`"),
                    );
                    return;
                }
                self.coerce(rhs, &lt, "assignment");
            }
            StmtKind::CompoundAssign { op, lhs, rhs } => {
                let lt = self.expr(lhs);
                let rt = self.expr(rhs);
                if !self.is_lvalue(lhs) {
                    let text = self.unit.slice(lhs.span).to_string();
                    self.error(lhs.span, format!("cannot assign to `{text}`: it is not a variable, field or `out`/`inout` parameter"));
                    return;
                }
                if matches!(lt, Type::Unknown) || matches!(rt, Type::Unknown) {
                    return;
                }
                let result = super::ops::binary(self, lhs, *op, lhs, rhs, lt.clone(), rt);
                if !matches!(result, Type::Unknown) && !self.types.convertible(&result, &lt) {
                    let (sr, sl) = (self.show(&result), self.show(&lt));
                    self.error(s.span, format!("cannot assign `{sr}` to `{sl}`"));
                }
                // The operator's folding must not make the target look constant.
                self.values.remove(&lhs.id);
                self.set_type(lhs.id, &lt);
            }
            StmtKind::Call(e) => {
                self.expr(e);
                if !matches!(e.kind, ExprKind::Call { .. }) {
                    self.error(e.span, "only a call can be used as a statement");
                }
            }
            StmtKind::If { cond, then, other } => {
                let t = self.expr(cond);
                self.expect_bool(cond, &t, "condition of `if`");
                self.branch(then);
                if let Some(o) = other {
                    self.branch(o);
                }
            }
            StmtKind::Block(b) => self.nested_block(b),
            StmtKind::Switch { expr, cases } => self.switch(expr, cases),
            StmtKind::For {
                init,
                cond,
                update,
                body,
            } => {
                let ctx = self.ctx.clone();
                self.scoped(ctx, |c| {
                    for s in init {
                        c.stmt(s);
                    }
                    if let Some(cond) = cond {
                        let t = c.expr(cond);
                        c.expect_bool(cond, &t, "condition of `for`");
                    }
                    for s in update {
                        c.stmt(s);
                    }
                    c.branch(body);
                });
            }
            StmtKind::ForIn {
                ty,
                var,
                range,
                body,
            } => {
                let range_ty = self.expr(range);
                let iterable = matches!(
                    range_ty,
                    Type::Stack(..)
                        | Type::List(_)
                        | Type::Keyset(_)
                        | Type::ListExpr(_)
                        | Type::Tuple(_)
                        | Type::Unknown
                        | Type::Var(_)
                );
                if !iterable {
                    let shown = self.show(&range_ty);
                    self.error(
                        range.span,
                        format!("a `for` loop cannot iterate over a value of type `{shown}`"),
                    );
                }
                let elem = match (&range_ty, ty) {
                    (_, Some(t)) => self.resolve_type(t),
                    (Type::Stack(e, _) | Type::List(e), None) => (**e).clone(),
                    (Type::Keyset(e), None) => (**e).clone(),
                    _ => Type::Unknown,
                };
                let ctx = self.ctx.clone();
                self.scoped(ctx, |c| {
                    c.declare_value(var, elem, true, None, super::env::ValueRole::Variable);
                    c.branch(body);
                });
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Empty | StmtKind::Exit => {}
            StmtKind::Return(value) => self.return_stmt(value.as_ref()),
            StmtKind::Decl(d) => self.decl(d),
        }
    }

    fn branch(&mut self, s: &Stmt) {
        let ctx = self.ctx.clone();
        self.scoped(ctx, |c| c.stmt(s));
    }

    fn assignable_type(&self, ty: &Type) -> bool {
        match ty {
            Type::Table(_)
            | Type::State
            | Type::Callable
            | Type::ApplyResult(_)
            | Type::TypeName(_) => false,
            Type::Named { .. } => !matches!(
                self.types.kind(ty),
                Some(TypeDefKind::Extern | TypeDefKind::Block { .. })
            ),
            _ => true,
        }
    }

    /// Where `return` may stand and whether it needs a value are
    /// structural rules; here the value's type is checked.
    fn return_stmt(&mut self, value: Option<&crate::ast::Expr>) {
        let Some(v) = value else { return };
        self.expr(v);
        if let Some(t) = self.ctx.return_type.clone() {
            if t != Type::Void {
                self.coerce(v, &t, "returned value");
            }
        }
    }

    fn switch(&mut self, expr: &crate::ast::Expr, cases: &[crate::ast::SwitchCase]) {
        let ty = self.expr(expr);
        let actions = match &ty {
            Type::ActionRun(i) => Some(self.tables.get(*i as usize).cloned().unwrap_or_default()),
            _ => None,
        };
        let numeric = self.types.numeric(&ty);
        let value_switch = matches!(numeric, Type::Bit(_) | Type::Int(_) | Type::Unknown)
            || matches!(self.types.kind(&ty), Some(TypeDefKind::Enum { .. }))
            || ty == Type::Error;
        if actions.is_none() && !value_switch {
            let shown = self.show(&ty);
            self.error(
                expr.span,
                format!("cannot switch on a value of type `{shown}`"),
            );
        } else if actions.is_none()
            && cases
                .iter()
                .any(|c| c.body.is_some() && !matches!(c.label, SwitchLabel::Default(_)))
            && !self.match_kinds.iter().any(|m| m == "exact")
        {
            // The reference compiler turns a switch with a block of its own
            // besides `default` into an `exact` table, and refuses it where
            // core.p4 is not included.
            self.error(
                expr.span,
                "a switch on a value needs the match kind `exact` (include core.p4)",
            );
        }
        for case in cases {
            if let SwitchLabel::Expr(label) = &case.label {
                match &actions {
                    Some(table) => {
                        // A label is a member of the table's `action_run`.
                        self.set_type(label.id, &ty);
                        self.action_label(label, table);
                    }
                    None => {
                        self.expr(label);
                        self.coerce(label, &ty, "switch label");
                        if !self.values.contains_key(&label.id)
                            && !matches!(self.type_of(label.id), Type::Unknown)
                        {
                            self.error(
                                label.span,
                                "switch label must be a compile-time known value",
                            );
                        }
                    }
                }
            }
            if let Some(body) = &case.body {
                self.nested_block(body);
            }
        }
    }

    fn action_label(&mut self, label: &crate::ast::Expr, table: &TableInfo) {
        let ExprKind::Path(p) = &label.kind else {
            self.error(
                label.span,
                "a label of a switch on `action_run` must be an action name",
            );
            return;
        };
        if !table.actions.contains(&p.name.name) {
            self.error(
                label.span,
                format!(
                    "`{}` is not an action of table `{}`",
                    p.name.name, table.name
                ),
            );
            return;
        }
        if let Some(Symbol::Callables(list)) = self.scopes.lookup(&p.name.name, p.top_level) {
            let decl = list.first().map(|c| c.decl).unwrap_or_default();
            self.refs.insert(
                label.id,
                super::Ref {
                    kind: super::RefKind::Action,
                    decl,
                },
            );
        }
    }
}
