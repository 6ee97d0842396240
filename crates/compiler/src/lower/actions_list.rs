//! The `actions` list of a table: names, names with empty parentheses, and
//! actions whose directional parameters the list binds (`a(hdr.x)`). A
//! bound action becomes a wrapper action of the same P4 name whose
//! parameters are the original's directionless ones (those the control
//! plane supplies) and whose body calls the original with the bound
//! arguments (after the statements of functions they call), so tables and the emitter only ever see table-ready actions.

use super::{Binding, Lowerer};
use crate::ir::{self, ActionId, Expr, ExprKind, Stmt, VarStorage};
use p4bpf_front::ast;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// The actions `refs` names, in order; remembers the wrappers of bound
    /// ones in `bound_actions` for the default action and entries.
    pub(super) fn actions_list(&mut self, refs: &'a [ast::ActionRef]) -> Vec<ActionId> {
        self.bound_actions.clear();
        let mut actions = vec![];
        for r in refs {
            let name = &r.name.name.name;
            let Some(Binding::Action(action)) = self.lookup_path(&r.name) else {
                self.diags.error(r.span, format!("unknown action `{name}`"));
                continue;
            };
            let directional = self.prog.action(action).map_or(0, |a| a.directional);
            let bound = r.args.as_deref().unwrap_or(&[]);
            if directional == 0 && bound.is_empty() {
                actions.push(action);
                continue;
            }
            if bound.len() != directional {
                self.diags.error(
                    r.span,
                    format!("action `{name}` has {directional} directional parameters: the `actions` list must bind all of them, and only them ({} bound)", bound.len()),
                );
                continue;
            }
            if let Some(wrapper) = self.bind_action(action, bound, r) {
                self.bound_actions.insert(action, wrapper);
                actions.push(wrapper);
            }
        }
        actions
    }

    /// What `path` names: `.name` skips the enclosing blocks' scopes for
    /// the program's top level (a control may declare an action of the
    /// same name as a top-level one).
    fn lookup_path(&self, path: &ast::Path) -> Option<Binding> {
        match (path.top_level, self.scopes.first()) {
            (true, Some(top)) => top.get(&path.name.name).cloned(),
            _ => self.lookup(&path.name.name),
        }
    }

    /// The action a table runs for `action` and the arguments left for the
    /// control plane or an entry to give, out of `args` written for all
    /// parameters.
    pub(super) fn table_action<'x>(
        &self,
        action: ActionId,
        args: &'x [ast::Argument],
    ) -> (ActionId, &'x [ast::Argument]) {
        match self.bound_actions.get(&action) {
            Some(wrapper) => {
                let directional = self.prog.action(action).map_or(0, |a| a.directional);
                (*wrapper, args.get(directional..).unwrap_or(&[]))
            }
            None => (action, args),
        }
    }

    fn bind_action(
        &mut self,
        action: ActionId,
        bound: &'a [ast::Argument],
        r: &ast::ActionRef,
    ) -> Option<ActionId> {
        let original = self.prog.action(action)?.clone();
        let mut hoisted = vec![];
        let mut args = vec![];
        for (a, param) in bound.iter().zip(&original.params) {
            let x = self.expr_into(&a.value, &mut hoisted)?;
            let by_pointer = self
                .prog
                .var(*param)
                .is_some_and(|v| v.storage == VarStorage::ActionOutParam);
            if by_pointer && !is_place(&x) {
                self.diags.error(
                    a.span,
                    "an `out` or `inout` argument must be a variable, field or stack element",
                );
                return None;
            }
            args.push(x);
        }
        // A function call's statements run in the wrapper, when the action
        // runs; a table cannot be applied from an action.
        if hoisted
            .iter()
            .any(|s| matches!(s, Stmt::Apply { .. } | Stmt::SwitchAction { .. }))
        {
            self.diags.error(
                r.span,
                "an argument bound in the `actions` list cannot apply a table",
            );
            return None;
        }
        let mut params = vec![];
        for param in original.params.get(original.directional..).unwrap_or(&[]) {
            let var = self.prog.var(*param)?.clone();
            let fresh = self.new_var(var.p4_name, var.ty.clone(), VarStorage::ActionParam);
            params.push(fresh);
            args.push(Expr {
                kind: ExprKind::Var(fresh),
                ty: var.ty,
            });
        }
        let id = ActionId(self.prog.actions.len() as u32);
        let c_name = self.c_name(&format!("{}_bound", original.c_name));
        self.prog.actions.push(ir::Action {
            c_name,
            params,
            directional: 0,
            body: hoisted
                .into_iter()
                .chain([Stmt::CallAction { action, args }])
                .collect(),
            ..original
        });
        Some(id)
    }
}

/// Whether `x` names a place an `out` argument can be written to.
pub(super) fn is_place(x: &Expr) -> bool {
    matches!(
        x.kind,
        ExprKind::Var(_) | ExprKind::Field { .. } | ExprKind::Index { .. }
    )
}
