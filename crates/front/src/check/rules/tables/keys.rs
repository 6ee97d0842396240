//! Key fields: a field whose expression cannot name itself in the control
//! plane needs a `@name` annotation.

use crate::ast::{BinaryOp, Expr, ExprKind, KeyElement};
use crate::check::rules::Reporter;

/// A key expression needs `@name` unless a control-plane name can be made
/// from it: names, fields, constant indices and slices, `&` and `isValid()`.
pub(super) fn key_name(key: &KeyElement, r: &mut Reporter) {
    if key.annotations.iter().any(|a| a.name.name == "name") || nameable(&key.expr) {
        return;
    }
    r.error(
        key.expr.span,
        "complex key expression requires a `@name` annotation",
    );
}

fn nameable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Path(_) | ExprKind::Int(_) => true,
        ExprKind::Member { base, .. } => nameable(base),
        ExprKind::Index { base, index } => nameable(base) && nameable(index),
        ExprKind::Slice { base, hi, lo } => nameable(base) && nameable(hi) && nameable(lo),
        ExprKind::Binary {
            op: BinaryOp::BitAnd,
            lhs,
            rhs,
        } => nameable(lhs) && nameable(rhs),
        ExprKind::Call { callee, args, .. } => {
            args.is_empty()
                && matches!(&callee.kind, ExprKind::Member { base, member } if member.name == "isValid" && nameable(base))
        }
        _ => false,
    }
}
