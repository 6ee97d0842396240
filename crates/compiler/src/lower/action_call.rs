//! A direct call of an action (`a(x, y);`): arguments matched to its
//! parameters by position or name, defaults filled in, `_` for an `out`
//! parameter written to a scratch variable; `out` and `inout` arguments
//! must be places the action can write through.

use super::actions_list::is_place;
use super::args::{match_args, Given};
use super::Lowerer;
use crate::ir::{ActionId, Expr, ExprKind, Stmt, VarStorage};
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
            if by_pointer && !is_place(&x) {
                self.diags.error(
                    call.span,
                    format!("the `out` or `inout` argument for `{}` must be a variable, field or stack element", param.name.name),
                );
                return;
            }
            lowered.push(x);
        }
        out.push(Stmt::CallAction {
            action,
            args: lowered,
        });
    }
}
