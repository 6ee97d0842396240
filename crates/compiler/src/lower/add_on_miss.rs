//! PNA's add-on-miss: the `add_on_miss` table property and `add_entry`
//! calls, lowered to an [`EntryRequest`] and a [`Builtin::AddEntry`] that
//! inserts where the call is made and gives whether the entry went in
//! (what the C does: `crate::emit::add_on_miss`).

use super::Lowerer;
use crate::arch::{pna::TIMER_PROFILE, Place};
use crate::ir::{
    ActionCall, ActionId, Arch, Builtin, EntryRequest, Expr, ExprKind, Stmt, Storage, Ty,
    VarStorage,
};
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::check::Value;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `add_on_miss = true|false`.
    pub(super) fn add_on_miss_property(&mut self, value: &ast::Expr) -> bool {
        match self.env.value(value) {
            Some(Value::Bool(b)) => *b,
            _ => {
                self.diags
                    .error(value.span, "`add_on_miss` takes `true` or `false`");
                false
            }
        }
    }

    /// Whether a table adds on miss without saying so: P4TC's compiler
    /// lets a default action call `add_entry` in any table (`pna.p4`
    /// programs must set `add_on_miss = true`, as PNA says).
    pub(super) fn adds_implicitly(&self, default_action: &ActionCall) -> bool {
        self.prog.arch == Arch::PnaTc
            && self
                .prog
                .action(default_action.action)
                .is_some_and(|a| !EntryRequest::made_in(&a.body).is_empty())
    }

    /// Whether an add-on-miss table's storage can take data-plane inserts.
    pub(super) fn add_on_miss_fits(&mut self, storage: Storage, decl: &ast::Decl) -> bool {
        if storage == Storage::Hash {
            return true;
        }
        self.diags.error(
            decl.span,
            "`add_on_miss` needs a table whose keys are all `exact` (PNA inserts exact entries)",
        );
        false
    }

    /// `add_entry(action_name, action_params, expire_time_profile_id)`:
    /// records the request; the call inserts and returns whether the entry
    /// went in (`true` in `pna.p4`, `ADD_ENTRY_SUCCESS`, `bit<1>` 0, in
    /// P4TC's).
    pub(super) fn add_entry(&mut self, args: &'a [ast::Argument], e: &ast::Expr) -> Option<Expr> {
        let inserted = self.entry_request(args, 0, e)?;
        Some(self.add_entry_result(inserted))
    }

    /// P4TC's `add_entry_if(do_add_entry, action_name, action_params,
    /// expire_time_profile_id)`: `add_entry` when `do_add_entry` holds,
    /// else nothing and `ADD_ENTRY_NOT_DONE` (C's `?:` inserts only then).
    pub(super) fn add_entry_if(
        &mut self,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let Some(condition) = self.named_arg(args, "do_add_entry", 0) else {
            self.diags.error(
                e.span,
                "`add_entry_if` takes a condition, an action name, its parameters and an expire-time profile",
            );
            return None;
        };
        let condition = self.expr(condition)?;
        let inserted = self.entry_request(args, 1, e)?;
        let both = Expr {
            kind: ExprKind::Mux {
                cond: Box::new(condition),
                then: Box::new(inserted),
                other: Box::new(Expr {
                    kind: ExprKind::Bool(false),
                    ty: Ty::Bool,
                }),
            },
            ty: Ty::Bool,
        };
        Some(self.add_entry_result(both))
    }

    /// Records the request whose action name, parameters and profile are
    /// the arguments from position `first` on; the expression inserting it.
    fn entry_request(
        &mut self,
        args: &'a [ast::Argument],
        first: usize,
        e: &ast::Expr,
    ) -> Option<Expr> {
        let (Some(name), Some(params), Some(profile)) = (
            self.named_arg(args, "action_name", first),
            self.named_arg(args, "action_params", first + 1),
            self.named_arg(args, "expire_time_profile_id", first + 2),
        ) else {
            self.diags.error(
                e.span,
                "`add_entry` takes an action name, its parameters and an expire-time profile",
            );
            return None;
        };
        let A::String(action) = &name.kind else {
            self.diags.error(
                name.span,
                "`add_entry`'s action name must be a string literal",
            );
            return None;
        };
        // The new entry's expire-time profile, for a table with idle timeouts.
        let profile = self.expr(profile)?;
        if let Some(place) = self.arch_place(&Place::var(TIMER_PROFILE), e.span) {
            self.pending.push(Stmt::Assign {
                rhs: profile.cast(place.ty.clone()),
                lhs: place,
            });
        }
        let mut values = vec![];
        for item in param_items(params) {
            let value = self.expr(item)?;
            if !matches!(value.ty, Ty::Bits { width, .. } if width <= 64) && value.ty != Ty::Bool {
                self.diags.error(
                    item.span,
                    "`add_entry` parameters must be bit strings of at most 64 bits on the eBPF target",
                );
                return None;
            }
            values.push(value);
        }
        let index = self.prog.entry_requests.len();
        let mut vars = Vec::with_capacity(values.len());
        for (i, value) in values.into_iter().enumerate() {
            let var = self.new_var(
                format!("add_entry{index}_{i}"),
                value.ty.clone(),
                VarStorage::State,
            );
            self.pending.push(Stmt::Assign {
                lhs: Expr {
                    kind: ExprKind::Var(var),
                    ty: value.ty.clone(),
                },
                rhs: value,
            });
            vars.push(var);
        }
        self.prog.entry_requests.push(EntryRequest {
            action: action.clone(),
            args: vars,
            refused: false,
        });
        self.entry_request_spans.push(e.span);
        Some(Expr {
            kind: ExprKind::Builtin {
                func: Builtin::AddEntry(index as u32),
                args: vec![],
            },
            ty: Ty::Bool,
        })
    }

    /// Checks each `add_entry` as PNA asks: made by the default action of
    /// an add-on-miss table whose `@tc_acl` lets the data plane create
    /// entries, naming one of that table's actions, with one value per
    /// parameter the action takes from an entry.
    pub(super) fn check_entry_requests(&mut self) {
        let requests = self.prog.entry_requests.clone();
        for (index, (request, span)) in requests
            .iter()
            .zip(self.entry_request_spans.clone())
            .enumerate()
        {
            match self.entry_request_fits(index, request) {
                Err(why) => self.diags.error(span, why),
                Ok(Some(why)) => {
                    self.diags.warning(span, why);
                    self.prog.entry_requests[index].refused = true;
                }
                Ok(None) => {}
            }
        }
    }

    /// `Ok(Some(why))`: the request is well made but its table's `@tc_acl`
    /// refuses it, which P4TC's compiler only warns about.
    fn entry_request_fits(
        &self,
        index: usize,
        request: &EntryRequest,
    ) -> Result<Option<String>, String> {
        let caller = self.request_caller(index);
        let table = self
            .prog
            .tables
            .iter()
            .find(|t| t.add_on_miss && Some(t.default_action.action) == caller)
            .ok_or("`add_entry` may only be called by the default action of a table with `add_on_miss = true`")?;
        let action = table
            .actions
            .iter()
            .filter_map(|a| self.prog.action(*a))
            .find(|a| request.names(&a.name))
            .ok_or_else(|| {
                format!(
                    "`add_entry` names `{}`, which is not an action of table `{}`",
                    request.action, table.name
                )
            })?;
        let wanted = action.params.len() - action.directional;
        if wanted != request.args.len() {
            return Err(format!(
                "action `{}` takes {wanted} parameters from a table entry, and `add_entry` gives {}",
                request.action,
                request.args.len()
            ));
        }
        Ok(table.tc_acl.as_ref().filter(|acl| !acl.data.contains('C')).map(|acl| {
            format!(
                "table `{}` does not let the data plane create entries: its @tc_acl(\"{}\") has no `C` after the colon, so this `add_entry` never inserts",
                table.name, acl.annotation
            )
        }))
    }

    /// The action whose body makes request `index`.
    fn request_caller(&self, index: usize) -> Option<ActionId> {
        self.prog
            .actions
            .iter()
            .position(|a| EntryRequest::made_in(&a.body).contains(&(index as u32)))
            .map(|i| ActionId(i as u32))
    }

    /// What `add_entry` returns, from whether the entry went in: the bool
    /// in `pna.p4`; in P4TC's, `ADD_ENTRY_SUCCESS` (`bit<1>` 0) or
    /// `ADD_ENTRY_NOT_DONE` (1).
    fn add_entry_result(&self, inserted: Expr) -> Expr {
        if self.prog.arch != Arch::PnaTc {
            return inserted;
        }
        let bit = |n: u32| Expr {
            kind: ExprKind::Int(n.into()),
            ty: Ty::bits(1),
        };
        Expr {
            kind: ExprKind::Mux {
                cond: Box::new(inserted),
                then: Box::new(bit(0)),
                other: Box::new(bit(1)),
            },
            ty: Ty::bits(1),
        }
    }

    /// The argument called `name`, else the one at `position`.
    fn named_arg(
        &self,
        args: &'a [ast::Argument],
        name: &str,
        position: usize,
    ) -> Option<&'a ast::Expr> {
        if args.iter().any(|a| a.name.is_some()) {
            return args
                .iter()
                .find(|a| a.name.as_ref().is_some_and(|n| n.name == name))
                .map(|a| &a.value);
        }
        args.get(position).map(|a| &a.value)
    }
}

/// The values of `{a, b}`, `(T){a, b}` or `{f = a, g = b}`.
fn param_items(e: &ast::Expr) -> Vec<&ast::Expr> {
    match &e.kind {
        A::List(items) => items.iter().collect(),
        A::Cast { expr, .. } => param_items(expr),
        A::StructInit { fields, .. } => fields.iter().map(|(_, value)| value).collect(),
        _ => vec![e],
    }
}
