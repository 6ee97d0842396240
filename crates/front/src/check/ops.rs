//! Binary operators: which operand types each accepts (spec 8.5-8.10),
//! the result type, and constant folding.
//!
//! Serializable enums and new types take part through their
//! representation. An `int` operand takes the other operand's fixed type;
//! two fixed types must match exactly, except for shifts (the amount is any
//! unsigned value) and concatenation (widths add up).

use super::consteval::{self, int_value, Value};
use super::types::Type;
use super::Checker;
use crate::ast::{BinaryOp, Expr};
use num_traits::Signed;

fn symbol(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Mul => "*",
        Div => "/",
        Mod => "%",
        Add => "+",
        Sub => "-",
        AddSat => "|+|",
        SubSat => "|-|",
        Shl => "<<",
        Shr => ">>",
        Le => "<=",
        Ge => ">=",
        Lt => "<",
        Gt => ">",
        Eq => "==",
        Ne => "!=",
        BitAnd => "&",
        BitXor => "^",
        BitOr => "|",
        Concat => "++",
        And => "&&",
        Or => "||",
    }
}

fn is_int(t: &Type) -> bool {
    matches!(t, Type::Bit(_) | Type::Int(_) | Type::InfInt | Type::Var(_))
}

/// Why values of `ty` cannot be compared with `==`/`!=` (spec 8.x: equality
/// is defined on base types, headers, structs, tuples, stacks and enums,
/// not on things that are not data).
fn incomparable(c: &Checker, ty: &Type) -> Option<&'static str> {
    use super::types::TypeDefKind;
    match ty {
        Type::Var(_) => Some("values of a type variable cannot be compared"),
        Type::Table(_) | Type::ApplyResult(_) | Type::ActionRun(_) => {
            Some("tables and the results of applying them cannot be compared")
        }
        Type::Callable | Type::Void => Some("functions, actions and methods cannot be compared"),
        Type::TypeName(_) => Some("a type is not a value and cannot be compared"),
        Type::State | Type::Keyset(_) | Type::ValueSet(_) | Type::DontCare => {
            Some("only values can be compared")
        }
        Type::Named { .. } => match c.types.kind(ty) {
            Some(TypeDefKind::Extern) => Some("externs cannot be compared"),
            Some(TypeDefKind::Block { .. }) => {
                Some("parsers, controls and packages cannot be compared")
            }
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn binary(
    c: &mut Checker,
    e: &Expr,
    op: BinaryOp,
    lhs: &Expr,
    rhs: &Expr,
    lt: Type,
    rt: Type,
) -> Type {
    use BinaryOp::*;
    let ln = c.types.numeric(&lt);
    let rn = c.types.numeric(&rt);
    let mismatch = |c: &mut Checker, why: &str| {
        let (sl, sr) = (c.show(&lt), c.show(&rt));
        c.error(
            e.span,
            format!(
                "operator `{}` cannot be applied to `{sl}` and `{sr}`{why}",
                symbol(op)
            ),
        );
        Type::Unknown
    };
    match op {
        And | Or => {
            c.expect_bool(lhs, &lt, &format!("operand of `{}`", symbol(op)));
            c.expect_bool(rhs, &rt, &format!("operand of `{}`", symbol(op)));
            fold_bool(c, e, op, lhs, rhs);
            Type::Bool
        }
        Eq | Ne => {
            let Some(common) = c.meet(&lt, &rt).or_else(|| c.meet(&ln, &rn)) else {
                return mismatch(c, "");
            };
            // Two lists compare as tuples; a lone initializer has no type.
            let both_lists = matches!((&lt, &rt), (Type::ListExpr(_), Type::ListExpr(_)));
            if matches!(common, Type::ListExpr(_) | Type::StructExpr(_)) && !both_lists {
                return mismatch(c, " (the initializer has no type to compare with)");
            }
            if let Some(why) = [&lt, &rt, &common]
                .into_iter()
                .find_map(|t| incomparable(c, t))
            {
                c.error(e.span, format!("operator `{}`: {why}", symbol(op)));
                return Type::Unknown;
            }
            c.coerce(lhs, &common, "comparison");
            c.coerce(rhs, &common, "comparison");
            if let (Some(a), Some(b)) = (
                c.values.get(&lhs.id).cloned(),
                c.values.get(&rhs.id).cloned(),
            ) {
                let equal = match (a.int(), b.int()) {
                    (Some(x), Some(y)) => x == y,
                    _ => a == b,
                };
                c.values.insert(e.id, Value::Bool(equal == (op == Eq)));
            }
            Type::Bool
        }
        Lt | Le | Gt | Ge | Add | Sub | Mul | Div | Mod | BitAnd | BitOr | BitXor | AddSat
        | SubSat => {
            if !is_int(&ln) || !is_int(&rn) {
                return mismatch(c, "");
            }
            let Some(common) = c.meet(&ln, &rn) else {
                return mismatch(c, " (no implicit cast between widths or signedness)");
            };
            if matches!(op, AddSat | SubSat) && common == Type::InfInt {
                return mismatch(c, " (saturating operators need a fixed width)");
            }
            if matches!(op, Div | Mod) && matches!(common, Type::Int(_)) {
                return mismatch(c, " (division and modulo need unsigned operands)");
            }
            if matches!(op, Div | Mod) {
                if c.const_of(rhs)
                    .is_some_and(|v| num_traits::Zero::is_zero(&v))
                {
                    c.error(rhs.span, "division by zero");
                    return Type::Unknown;
                }
                for operand in [lhs, rhs] {
                    if c.const_of(operand).is_some_and(|v| v.is_negative()) {
                        c.error(
                            operand.span,
                            "division and modulo are not defined for negative values",
                        );
                        return Type::Unknown;
                    }
                }
            }
            c.coerce(lhs, &common, "operand");
            c.coerce(rhs, &common, "operand");
            let comparison = matches!(op, Lt | Le | Gt | Ge);
            fold_int(c, e, op, lhs, rhs, &common);
            if comparison {
                Type::Bool
            } else {
                common
            }
        }
        Shl | Shr => shift(c, e, op, lhs, rhs, &ln, &rn, mismatch),
        Concat => {
            if ln == Type::String && rn == Type::String {
                if let (Some(Value::String(a)), Some(Value::String(b))) = (
                    c.values.get(&lhs.id).cloned(),
                    c.values.get(&rhs.id).cloned(),
                ) {
                    c.values.insert(e.id, Value::String(a + &b));
                }
                return Type::String;
            }
            let (lw, rw) = match (&ln, &rn) {
                (Type::Bit(a) | Type::Int(a), Type::Bit(b) | Type::Int(b)) => (*a, *b),
                _ => return mismatch(c, " (both operands need a fixed width)"),
            };
            let width = lw.saturating_add(rw);
            if width > consteval::MAX_WIDTH {
                c.error(
                    e.span,
                    format!("concatenation is {width} bits wide, more than any value may be"),
                );
                return Type::Unknown;
            }
            let ty = match ln {
                Type::Int(_) => Type::Int(width),
                _ => Type::Bit(width),
            };
            if let (Some(a), Some(b)) = (c.const_of(lhs), c.const_of(rhs)) {
                c.values
                    .insert(e.id, int_value(consteval::concat(&a, &b, rw), &ty));
            }
            ty
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn shift(
    c: &mut Checker,
    e: &Expr,
    op: BinaryOp,
    lhs: &Expr,
    rhs: &Expr,
    ln: &Type,
    rn: &Type,
    mismatch: impl Fn(&mut Checker, &str) -> Type,
) -> Type {
    if !is_int(ln) || !is_int(rn) {
        return mismatch(c, "");
    }
    let amount = c.const_of(rhs);
    if matches!(rn, Type::Int(_)) && amount.is_none() {
        return mismatch(c, " (the shift amount must be unsigned)");
    }
    if amount.as_ref().is_some_and(|a| a.is_negative()) {
        c.error(rhs.span, "shift amount must not be negative");
        return Type::Unknown;
    }
    if *ln == Type::InfInt && amount.is_none() {
        c.error(
            e.span,
            "shifting an `int` needs a compile-time known amount (give the left operand a width)",
        );
        return Type::Unknown;
    }
    if let (Type::Bit(w) | Type::Int(w), Some(a)) = (ln, &amount) {
        if *a > (*w).into() {
            c.warning(
                rhs.span,
                format!("shift by {a} is wider than the {w}-bit operand"),
            );
        }
    }
    fold_int(c, e, op, lhs, rhs, ln);
    ln.clone()
}

fn fold_int(c: &mut Checker, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr, ty: &Type) {
    use BinaryOp::*;
    let (Some(a), Some(b)) = (c.const_of(lhs), c.const_of(rhs)) else {
        return;
    };
    let value = match op {
        Lt => Value::Bool(a < b),
        Le => Value::Bool(a <= b),
        Gt => Value::Bool(a > b),
        Ge => Value::Bool(a >= b),
        _ => match consteval::int_binary(op, &a, &b, ty) {
            Ok(v) => int_value(v, ty),
            Err(why) => {
                c.error(e.span, why);
                return;
            }
        },
    };
    c.values.insert(e.id, value);
}

fn fold_bool(c: &mut Checker, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) {
    let get = |c: &Checker, x: &Expr| match c.values.get(&x.id) {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    };
    let value = match (op, get(c, lhs), get(c, rhs)) {
        (BinaryOp::And, Some(false), _) => false,
        (BinaryOp::Or, Some(true), _) => true,
        (_, Some(_), Some(b)) => b,
        _ => return,
    };
    c.values.insert(e.id, Value::Bool(value));
}
