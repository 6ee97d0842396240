//! Rules on expressions inside bodies: `this` outside an instance
//! initializer, `action_run` outside a `switch`, table `apply` where tables
//! cannot be applied, `verify` outside parsers, actions called from
//! functions or with type arguments, `_` as an operand, calls of a call's
//! result, arguments mixing names and positions or naming one twice,
//! structure initializers giving a field twice, and initializers with `...`
//! where nothing stores them (an operand, a call argument).

use super::{Body, Ctx};
use crate::ast::{Argument, Expr, ExprKind};
use crate::check::rules::walk::{applied_name, for_each_child, for_each_expr};
use crate::check::rules::Reporter;
use std::collections::HashSet;

/// Rules on expressions: `this`, `action_run`, table `apply`, `verify`
/// and actions called from functions.
pub(super) fn expr<'p>(e: &'p Expr, ctx: &Ctx<'_, 'p>, r: &mut Reporter) {
    for_each_expr(e, &mut |e| match &e.kind {
        ExprKind::This if !ctx.this_ok => r.error(
            e.span,
            "`this` can only be used in the methods of an instance initializer",
        ),
        ExprKind::Member { member, base }
            if member.name == "action_run" && applied_name(base).is_some() =>
        {
            r.error(
                e.span,
                "`action_run` can only be used as the expression of a `switch`",
            )
        }
        ExprKind::Call { callee, .. } => call(e, callee, ctx, r),
        ExprKind::StructInit { fields, .. } => {
            let mut seen: HashSet<&str> = HashSet::new();
            for (name, _) in fields {
                if !seen.insert(&name.name) {
                    r.error(
                        name.span,
                        format!("field `{}` is initialized twice", name.name),
                    );
                }
            }
        }
        ExprKind::Unary { .. } | ExprKind::Binary { .. } => for_each_child(e, &mut |c| {
            if matches!(c.kind, ExprKind::DontCare) {
                r.error(c.span, "`_` cannot be used as a value")
            }
            no_defaults(c, "an operand", r);
        }),
        ExprKind::Ternary { .. }
        | ExprKind::Cast { .. }
        | ExprKind::Member { .. }
        | ExprKind::Index { .. }
        | ExprKind::Slice { .. } => for_each_child(e, &mut |c| {
            if matches!(c.kind, ExprKind::DontCare) {
                r.error(c.span, "`_` cannot be used as a value")
            }
        }),
        _ => {}
    });
}

/// Action arguments in a table are evaluated by the control plane's view
/// of the table, where no other table can be applied.
pub(super) fn no_table_apply(e: &Expr, ctx: &Ctx, r: &mut Reporter) {
    for_each_expr(e, &mut |e| {
        if let Some(table) = applied_name(e).filter(|t| ctx.tables.contains_key(t)) {
            r.error(
                e.span,
                format!("table `{table}` cannot be applied in an action argument"),
            );
        }
    });
}

/// Arguments are all positional or all named, and no name is given twice.
pub(super) fn arguments(args: &[Argument], r: &mut Reporter) {
    let named = args.iter().filter(|a| a.name.is_some()).count();
    if named != 0 && named != args.len() {
        if let Some(first) = args.first() {
            r.error(
                first.span,
                "arguments must be either all named or all positional",
            );
        }
    }
    let mut seen: HashSet<&str> = HashSet::new();
    for name in args.iter().filter_map(|a| a.name.as_ref()) {
        if !seen.insert(&name.name) {
            r.error(
                name.span,
                format!("argument `{}` is given twice", name.name),
            );
        }
    }
}

fn call<'p>(e: &'p Expr, callee: &'p Expr, ctx: &Ctx<'_, 'p>, r: &mut Reporter) {
    let ExprKind::Call {
        args, type_args, ..
    } = &e.kind
    else {
        return;
    };
    arguments(args, r);
    for arg in args {
        no_defaults(&arg.value, "a call argument", r);
    }
    if matches!(callee.kind, ExprKind::Call { .. }) {
        r.error(e.span, "the result of a call cannot be called");
    }
    if let Some(table) = applied_name(e) {
        if ctx.tables.contains_key(table)
            && matches!(ctx.body, Body::Action | Body::Function { .. })
        {
            r.error(
                e.span,
                format!("table `{table}` can only be applied in a control's `apply` block"),
            );
        }
    }
    let ExprKind::Path(path) = &callee.kind else {
        return;
    };
    let name = path.name.name.as_str();
    if name == "verify"
        && !ctx.top.user_verify
        && matches!(ctx.body, Body::Action | Body::Apply | Body::Function { .. })
    {
        r.error(e.span, "`verify` can only be called in a parser");
    }
    let shadowed = ctx.params.iter().any(|p| p.name.name == name);
    if shadowed || !ctx.top.actions.contains(name) {
        return;
    }
    if matches!(ctx.body, Body::Function { .. }) && !ctx.this_ok {
        r.error(
            e.span,
            format!("action `{name}` cannot be called from a function"),
        );
    }
    if !type_args.is_empty() {
        r.error(e.span, format!("action `{name}` takes no type arguments"));
    }
}

/// An initializer ending in `...` takes its missing fields from the type it
/// initializes, so it may only be stored (declared, assigned, cast): as an
/// operand, argument or returned value it has no type to complete it.
pub(super) fn no_defaults(e: &Expr, place: &str, r: &mut Reporter) {
    let with_defaults = match &e.kind {
        ExprKind::StructInit { rest, .. } => *rest,
        ExprKind::List(items) => items
            .last()
            .is_some_and(|last| matches!(last.kind, ExprKind::DefaultValue)),
        _ => false,
    };
    if with_defaults {
        r.error(
            e.span,
            format!("an initializer with `...` cannot be {place}; declare or assign it first"),
        );
    }
}
