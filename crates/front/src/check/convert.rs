//! Conversions: implicit casts where a value meets an expected type
//! (spec 8.11.2), explicit casts `(T) e` (spec 8.11.1), and the common
//! type two operands meet at.
//!
//! An implicit cast rewrites the recorded type of the expression, down
//! into initializer lists, and converts its constant value, so the back
//! end sees every literal at its final width.

use super::consteval::{self, fits, int_value, Value};
use super::types::{Type, TypeDefKind};
use super::Checker;
use crate::ast::{Expr, ExprKind};
use crate::diag::short_number;
use num_bigint::BigInt;

impl Checker<'_> {
    /// The common type of two operands: the same type, or the fixed one
    /// when the other is `int` or an initializer.
    pub(super) fn meet(&self, a: &Type, b: &Type) -> Option<Type> {
        if self.types.same(a, b) {
            return Some(if matches!(a, Type::Unknown | Type::Var(_)) {
                b.clone()
            } else {
                a.clone()
            });
        }
        // An `int` operand takes the other operand's fixed width (the
        // fixed type also converts to `int`, but only for `int` parameters).
        match (a, b) {
            (Type::InfInt, Type::Bit(_) | Type::Int(_)) => return Some(b.clone()),
            (Type::Bit(_) | Type::Int(_), Type::InfInt) => return Some(a.clone()),
            _ => {}
        }
        if self.types.convertible(b, a)
            && !matches!(
                a,
                Type::ListExpr(_) | Type::StructExpr(_) | Type::InvalidExpr
            )
        {
            return Some(a.clone());
        }
        if self.types.convertible(a, b) {
            return Some(b.clone());
        }
        None
    }

    pub(super) fn cast_expr(&mut self, e: &Expr, ty: &crate::ast::TypeRef, inner: &Expr) -> Type {
        self.reject_dont_care(ty, "the type of a cast");
        let to = self.resolve_type(ty);
        let from = self.expr(inner);
        if self.types.convertible(&from, &to) {
            self.coerce(inner, &to, "cast");
        } else if !self.explicit_cast_ok(&from, &to) {
            let (sf, st) = (self.show(&from), self.show(&to));
            self.error(e.span, format!("cannot cast `{sf}` to `{st}`"));
            return Type::Unknown;
        }
        let to_bool = self.types.representation(&to) == Type::Bool;
        if to_bool && matches!(from, Type::InfInt) {
            // Only 0 and 1 name a truth value (spec 8.11.1).
            let value = self.const_of(inner);
            if !value
                .as_ref()
                .is_some_and(|v| *v == BigInt::from(0) || *v == BigInt::from(1))
            {
                let shown = value.map_or_else(
                    || self.unit.slice(inner.span).to_string(),
                    |v| v.to_string(),
                );
                self.error(
                    e.span,
                    format!("cannot cast `{shown}` to `bool`: only 0 and 1 convert"),
                );
                return Type::Unknown;
            }
        }
        if let Some(v) = self.values.get(&inner.id).cloned() {
            let target = self.types.representation(&to);
            if let Some(cast) = consteval::cast(&v, &target) {
                self.values.insert(e.id, cast);
            } else if !matches!(v, Value::Int { .. }) {
                self.values.insert(e.id, v);
            }
        }
        to
    }

    /// Explicit casts of spec 8.11.1 beyond the implicit ones.
    pub(super) fn explicit_cast_ok(&self, from: &Type, to: &Type) -> bool {
        let f = self.types.representation(from);
        let t = self.types.representation(to);
        let is_new = |t: &Type| matches!(self.types.kind(t), Some(TypeDefKind::NewType(_)));
        if is_new(from) || is_new(to) {
            // A new type converts only to and from its representation.
            return self.types.same(&f, &t);
        }
        match (&f, &t) {
            (Type::Bit(_), Type::Bit(_)) | (Type::Int(_), Type::Int(_)) => true,
            (Type::Bit(a), Type::Int(b)) | (Type::Int(a), Type::Bit(b)) => a == b,
            (Type::Bit(1), Type::Bool) | (Type::Bool, Type::Bit(1)) => true,
            (Type::InfInt, Type::Bool) => true,
            (Type::InfInt, Type::Bit(_) | Type::Int(_)) => true,
            (Type::Bit(_) | Type::Int(_), Type::InfInt) => true,
            _ => {
                // A serializable enum from its representation (or int).
                self.types
                    .enum_underlying(to)
                    .is_some_and(|u| self.types.same(&u, from) || matches!(from, Type::InfInt))
            }
        }
    }

    /// Applies an implicit cast of `e` to `to`, reporting when there is
    /// none. `what` names the context ("assignment", "argument `x`").
    pub(super) fn coerce(&mut self, e: &Expr, to: &Type, what: &str) {
        let from = self.type_of(e.id);
        if !self.types.convertible(&from, to) {
            let (sf, st) = (self.show(&from), self.show(to));
            let why = match (&from, to) {
                (Type::Bit(_) | Type::Int(_), Type::Bit(_) | Type::Int(_)) => {
                    " (no implicit cast between widths or signedness)"
                }
                _ => "",
            };
            self.error(
                e.span,
                format!("{what}: cannot convert `{sf}` to `{st}`{why}"),
            );
            return;
        }
        self.retype(e, &from, to);
    }

    /// Records the type after an implicit cast, down into initializers.
    pub(super) fn retype(&mut self, e: &Expr, from: &Type, to: &Type) {
        if matches!(to, Type::Unknown | Type::Var(_) | Type::DontCare) || from == to {
            return;
        }
        match from {
            Type::InfInt => {
                self.check_fits(e, to);
                if let Some(Value::Int { value, .. }) = self.values.get(&e.id).cloned() {
                    let target = self.types.numeric(to);
                    self.values.insert(e.id, int_value(value, &target));
                }
                self.set_type(e.id, to);
            }
            Type::ListExpr(_) | Type::StructExpr(_) | Type::InvalidExpr => {
                self.set_type(e.id, to);
                self.retype_items(e, to);
            }
            _ => {}
        }
    }

    pub(super) fn retype_items(&mut self, e: &Expr, to: &Type) {
        let fields = self.types.fields(to);
        match &e.kind {
            ExprKind::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    let target = match to {
                        Type::Tuple(ts) => ts.get(i).cloned(),
                        Type::List(t) | Type::Stack(t, _) => Some((**t).clone()),
                        _ => fields
                            .as_ref()
                            .and_then(|fs| fs.get(i).map(|(_, t)| t.clone())),
                    };
                    if let Some(t) = target {
                        let from = self.type_of(item.id);
                        self.retype(item, &from, &t);
                    }
                }
            }
            ExprKind::StructInit { fields: given, .. } => {
                for (name, item) in given {
                    let target = fields
                        .as_ref()
                        .and_then(|fs| fs.iter().find(|(f, _)| *f == name.name));
                    if let Some((_, t)) = target {
                        let from = self.type_of(item.id);
                        self.retype(item, &from, t);
                    }
                }
            }
            _ => {}
        }
    }

    /// Checks that a compile-time value fits the type it is converted to.
    pub(super) fn check_fits(&mut self, e: &Expr, ty: &Type) {
        if let Some(Value::Int {
            value,
            ty: Type::InfInt,
        }) = self.values.get(&e.id).cloned()
        {
            self.warn_if_truncated(e, &value, ty);
        }
    }

    /// Warns when the constant `value` of `e` does not fit `ty`.
    pub(super) fn warn_if_truncated(&mut self, e: &Expr, value: &BigInt, ty: &Type) {
        if !fits(value, ty) {
            let shown = self.show(ty);
            let value = short_number(value);
            self.warning(
                e.span,
                format!("value {value} does not fit in `{shown}` and is truncated"),
            );
        }
    }
}
