//! Read-only traversal of expressions, shared by the rules that look for a
//! construct anywhere inside an expression (a table `apply`, `this`, an
//! `action_run`). Pre-order, children left to right; the parser bounds the
//! nesting depth, so recursion here is bounded too.

use crate::ast::{Expr, ExprKind};

/// Calls `f` on `e` and then on every expression nested in it.
pub(super) fn for_each_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    for_each_child(e, &mut |c| for_each_expr(c, f));
}

/// Calls `f` on the direct sub-expressions of `e`.
pub(super) fn for_each_child<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    match &e.kind {
        ExprKind::Member { base, .. } => f(base),
        ExprKind::Index { base, index } => {
            f(base);
            f(index);
        }
        ExprKind::Slice { base, hi, lo } => {
            f(base);
            f(hi);
            f(lo);
        }
        ExprKind::IndexedSlice { base, lo, width } => {
            f(base);
            f(lo);
            f(width);
        }
        ExprKind::Call { callee, args, .. } => {
            f(callee);
            args.iter().for_each(|a| f(&a.value));
        }
        ExprKind::Unary { operand, .. } => f(operand),
        ExprKind::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::Ternary { cond, then, other } => {
            f(cond);
            f(then);
            f(other);
        }
        ExprKind::Cast { expr, .. } => f(expr),
        ExprKind::List(items) => items.iter().for_each(&mut *f),
        ExprKind::StructInit { fields, .. } => fields.iter().for_each(|(_, v)| f(v)),
        ExprKind::Mask { value, mask } => {
            f(value);
            f(mask);
        }
        ExprKind::Range { lo, hi } => {
            f(lo);
            f(hi);
        }
        ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::String(_)
        | ExprKind::Path(_)
        | ExprKind::This
        | ExprKind::Type(_)
        | ExprKind::Invalid
        | ExprKind::DontCare
        | ExprKind::DefaultValue
        | ExprKind::Default
        | ExprKind::Error => {}
    }
}

/// `t.apply()` where `t` is a plain name: the name, if `e` has that shape.
pub(super) fn applied_name(e: &Expr) -> Option<&str> {
    let ExprKind::Call { callee, args, .. } = &e.kind else {
        return None;
    };
    let ExprKind::Member { base, member } = &callee.kind else {
        return None;
    };
    let ExprKind::Path(path) = &base.kind else {
        return None;
    };
    (member.name == "apply" && args.is_empty() && !path.top_level)
        .then_some(path.name.name.as_str())
}
