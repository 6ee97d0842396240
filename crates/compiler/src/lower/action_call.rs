//! A direct call of an action (`a(x, y);`): arguments matched to its
//! parameters by position or name, defaults filled in, `_` for an `out`
//! parameter written to a scratch variable; `out` and `inout` arguments
//! must be places the action can write through, or slices of places.
//! Where the argument is a slice, or the action also reads or writes the
//! argument's variable itself, the argument goes through a copy, so the
//! action sees P4's copy-in/copy-out and not an alias.

use super::actions_list::is_place;
use super::args::{match_args, Given};
use super::Lowerer;
use crate::ir::{ActionId, Expr, ExprKind, Stmt, VarId, VarStorage};
use crate::midend::visit::{walk_stmts, Descend, Visitor};
use p4bpf_front::ast;

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn direct_action_call(
        &mut self,
        action: ActionId,
        args: &'a [ast::Argument],
        call: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let Some(params) = self.action_params.get(&action).copied() else {
            return;
        };
        let given = match match_args(params, args) {
            Ok(given) => given,
            Err(why) => {
                self.diags.error(call.span, format!("action call: {why}"));
                return;
            }
        };
        let vars = self
            .prog
            .action(action)
            .map(|a| a.params.clone())
            .unwrap_or_default();
        let mut lowered = vec![];
        let mut copy_out = vec![];
        for ((given, param), var) in given.into_iter().zip(params).zip(vars) {
            let Some(var) = self.prog.var(var).cloned() else {
                return;
            };
            let by_pointer = var.storage == VarStorage::ActionOutParam;
            let x = match given {
                Given::Value(value) => match self.expr_into(value, out) {
                    Some(x) => x,
                    None => return,
                },
                Given::Nothing if by_pointer => {
                    let name = format!("{}.discard{}", self.dotted("tmp"), self.prog.vars.len());
                    let v = self.new_var(name, var.ty.clone(), VarStorage::State);
                    Expr {
                        kind: ExprKind::Var(v),
                        ty: var.ty,
                    }
                }
                Given::Nothing => {
                    self.diags.error(
                        call.span,
                        format!("no argument for parameter `{}`", param.name.name),
                    );
                    return;
                }
            };
            let slice = matches!(&x.kind, ExprKind::Slice { base, .. } if is_place(base));
            if by_pointer && !is_place(&x) && !slice {
                self.diags.error(
                    call.span,
                    format!("the `out` or `inout` argument for `{}` must be a variable, field or stack element", param.name.name),
                );
                return;
            }
            // A slice has no address of its own: it goes through a copy too.
            let aliased = root_var(&x).is_some_and(|v| self.action_touches(action, v));
            if by_pointer && (aliased || slice) {
                let name = format!("{}.copy{}", self.dotted("tmp"), self.prog.vars.len());
                let copy = Expr {
                    kind: ExprKind::Var(self.new_var(name, x.ty.clone(), VarStorage::State)),
                    ty: x.ty.clone(),
                };
                if param.direction != Some(ast::Direction::Out) {
                    out.push(Stmt::Assign {
                        lhs: copy.clone(),
                        rhs: x.clone(),
                    });
                }
                if matches!(
                    param.direction,
                    Some(ast::Direction::Out | ast::Direction::InOut)
                ) {
                    copy_out.push(Stmt::Assign {
                        lhs: x,
                        rhs: copy.clone(),
                    });
                }
                lowered.push(copy);
            } else {
                lowered.push(x);
            }
        }
        out.push(Stmt::CallAction {
            action,
            args: lowered,
        });
        out.extend(copy_out);
    }

    /// Whether `action`'s body, or an action it calls, names `var`.
    fn action_touches(&self, action: ActionId, var: VarId) -> bool {
        struct Touches<'p> {
            prog: &'p crate::ir::Program,
            var: VarId,
            seen: Vec<ActionId>,
            found: bool,
        }
        impl Visitor for Touches<'_> {
            fn stmt(&mut self, s: &Stmt) -> Descend {
                if let Stmt::CallAction { action, .. } = s {
                    if !self.seen.contains(action) {
                        self.seen.push(*action);
                        if let Some(a) = self.prog.action(*action) {
                            walk_stmts(self, &a.body);
                        }
                    }
                }
                Descend::Yes
            }
            fn expr(&mut self, e: &Expr) -> Descend {
                self.found |= matches!(e.kind, ExprKind::Var(v) if v == self.var);
                Descend::Yes
            }
        }
        let mut touches = Touches {
            prog: &self.prog,
            var,
            seen: vec![action],
            found: false,
        };
        if let Some(a) = self.prog.action(action) {
            walk_stmts(&mut touches, &a.body);
        }
        touches.found
    }
}

/// The variable a place belongs to: `h` for `h.eth.type` or `h.s[i].f`.
fn root_var(x: &Expr) -> Option<VarId> {
    match &x.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Field { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. } => root_var(base),
        _ => None,
    }
}
