//! Typing of expressions (calls are in [`super::calls`], operators in
//! [`super::ops`], casts in [`super::convert`]).
//!
//! Types are computed bottom-up; the context then applies implicit casts
//! with `coerce`, which also rewrites the recorded type of the
//! expression (an `int` literal used as `bit<8>` is recorded as `bit<8>`).
//! Operands of binary operators meet the same way: an `int` operand takes
//! the type of the other one; otherwise both must have the same type (spec
//! 8.11: no implicit cast between widths or signedness). Compile-time
//! values are folded on the way.

use super::consteval::{self, int_value, Value};
use super::env::{Symbol, ValueRole};
use super::types::{Type, TypeDefKind};
use super::{Checker, Ref, RefKind};
use crate::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};

impl Checker<'_> {
    /// Types `e`, records and returns its type.
    pub(super) fn expr(&mut self, e: &Expr) -> Type {
        let ty = self.expr_kind(e);
        self.set_type(e.id, &ty);
        ty
    }

    fn expr_kind(&mut self, e: &Expr) -> Type {
        match &e.kind {
            ExprKind::Bool(b) => {
                self.values.insert(e.id, Value::Bool(*b));
                Type::Bool
            }
            ExprKind::Int(lit) => {
                let ty = match lit.width {
                    Some((w, _)) if w > consteval::MAX_WIDTH => {
                        self.error(e.span, format!("width {w} is too large"));
                        return Type::Unknown;
                    }
                    Some((w, true)) => Type::Int(w),
                    Some((w, false)) => Type::Bit(w),
                    None => Type::InfInt,
                };
                if lit.width.is_some() {
                    self.warn_if_truncated(e, &lit.value, &ty);
                }
                self.values.insert(e.id, int_value(lit.value.clone(), &ty));
                ty
            }
            ExprKind::String(s) => {
                self.values.insert(e.id, Value::String(s.clone()));
                Type::String
            }
            ExprKind::Path(path) => self.path_expr(e, path),
            // `this` outside an initializer is a structural error.
            ExprKind::This => self.ctx.this_type.clone().unwrap_or(Type::Unknown),
            ExprKind::Member { base, member } => self.member_expr(e, base, member),
            ExprKind::Index { base, index } => self.index_expr(base, index),
            ExprKind::Slice { base, hi, lo } => self.slice_expr(e, base, hi, lo),
            ExprKind::IndexedSlice { base, lo, width } => self.indexed_slice(base, lo, width),
            // `...`: the default value of whatever type is expected.
            ExprKind::DefaultValue => Type::DontCare,
            ExprKind::Call {
                callee,
                type_args,
                args,
            } => self.call_expr(e, callee, type_args, args),
            ExprKind::Unary { op, operand } => self.unary_expr(e, *op, operand),
            ExprKind::Binary { op, lhs, rhs } => self.binary_expr(e, *op, lhs, rhs),
            ExprKind::Ternary { cond, then, other } => self.ternary_expr(e, cond, then, other),
            ExprKind::Cast { ty, expr } => self.cast_expr(e, ty, expr),
            ExprKind::Type(t) => Type::TypeName(Box::new(self.resolve_type(t))),
            ExprKind::List(items) => {
                let tys: Vec<Type> = items.iter().map(|i| self.expr(i)).collect();
                let values: Option<Vec<Value>> = items
                    .iter()
                    .map(|i| self.values.get(&i.id).cloned())
                    .collect();
                if let Some(values) = values {
                    self.values.insert(e.id, Value::List(values));
                }
                Type::ListExpr(tys)
            }
            ExprKind::StructInit { ty, fields, rest } => {
                self.struct_init(e, ty.as_ref(), fields, *rest)
            }
            ExprKind::Invalid => Type::InvalidExpr,
            ExprKind::DontCare => Type::DontCare,
            ExprKind::Default => Type::Keyset(Box::new(Type::Unknown)),
            ExprKind::Mask { value, mask } => self.keyset_pair(e, value, mask, "&&&"),
            ExprKind::Range { lo, hi } => self.keyset_pair(e, lo, hi, ".."),
            ExprKind::Error => Type::Unknown,
        }
    }

    fn path_expr(&mut self, e: &Expr, path: &crate::ast::Path) -> Type {
        let name = &path.name.name;
        let Some(sym) = self.scopes.lookup(name, path.top_level).cloned() else {
            if name == "accept" || name == "reject" {
                self.refs.insert(
                    e.id,
                    Ref {
                        kind: RefKind::State,
                        decl: Default::default(),
                    },
                );
                return Type::State;
            }
            if name == "error" {
                return Type::TypeName(Box::new(Type::Error));
            }
            self.error(path.span, format!("`{name}` is not declared"));
            return Type::Unknown;
        };
        let (kind, decl, ty) = match sym {
            Symbol::Value(v) => {
                if let Some(val) = &v.value {
                    self.values.insert(e.id, val.clone());
                }
                let kind = match v.role {
                    ValueRole::Variable => RefKind::Variable,
                    ValueRole::Constant => RefKind::Constant,
                    ValueRole::Parameter => RefKind::Parameter,
                    ValueRole::BoundParameter => RefKind::BoundParameter,
                    ValueRole::Instance => RefKind::Instance,
                    ValueRole::ValueSet => RefKind::ValueSet,
                };
                (kind, v.decl, v.ty)
            }
            Symbol::Type(t) => {
                let decl = match &t {
                    Type::Named { id, .. } => {
                        self.types.get(*id).map(|d| d.span).unwrap_or_default()
                    }
                    _ => Default::default(),
                };
                (RefKind::Type, decl, Type::TypeName(Box::new(t)))
            }
            Symbol::Callables(list) => {
                let kind = match list.first().map(|c| c.kind) {
                    Some(super::env::CallableKind::Action) => RefKind::Action,
                    Some(super::env::CallableKind::ExternFunction) => RefKind::ExternFunction,
                    _ => RefKind::Function,
                };
                (
                    kind,
                    list.first().map(|c| c.decl).unwrap_or_default(),
                    Type::Callable,
                )
            }
            Symbol::Table(i, decl) => (RefKind::Table, decl, Type::Table(i)),
            Symbol::State(decl) => (RefKind::State, decl, Type::State),
        };
        self.refs.insert(e.id, Ref { kind, decl });
        ty
    }

    fn member_expr(&mut self, e: &Expr, base: &Expr, member: &crate::ast::Ident) -> Type {
        let base_ty = self.expr(base);
        let name = member.name.as_str();
        match &base_ty {
            Type::Unknown => Type::Unknown,
            Type::TypeName(t) => self.type_member(e, t, member),
            Type::ApplyResult(i) => match name {
                "hit" | "miss" => Type::Bool,
                "action_run" => Type::ActionRun(*i),
                _ => self.no_member(member, &base_ty),
            },
            Type::Stack(elem, n) => match name {
                "size" => {
                    self.values
                        .insert(e.id, int_value(BigInt::from(*n), &Type::Bit(32)));
                    Type::Bit(32)
                }
                "lastIndex" | "next" if !self.ctx.in_parser => {
                    self.error(
                        member.span,
                        format!("`{name}` of a header stack is only allowed in parsers"),
                    );
                    Type::Unknown
                }
                "lastIndex" => Type::Bit(32),
                "last" if !self.ctx.in_parser => {
                    self.error(
                        member.span,
                        "`last` of a header stack is only allowed in parsers",
                    );
                    Type::Unknown
                }
                "next" | "last" => (**elem).clone(),
                "push_front" | "pop_front" => Type::Callable,
                _ => self.no_member(member, &base_ty),
            },
            Type::Named { .. } => {
                if let Some(fields) = self.types.fields(&base_ty) {
                    if let Some((_, t)) = fields.iter().find(|(f, _)| f == name) {
                        return t.clone();
                    }
                }
                match self.types.kind(&base_ty) {
                    Some(TypeDefKind::Header { .. }) if is_header_method(name) => Type::Callable,
                    Some(TypeDefKind::HeaderUnion { .. }) if name == "isValid" => Type::Callable,
                    Some(
                        TypeDefKind::Struct { .. }
                        | TypeDefKind::Header { .. }
                        | TypeDefKind::HeaderUnion { .. },
                    ) if is_size_method(name) => Type::Callable,
                    Some(TypeDefKind::Extern | TypeDefKind::Block { .. }) => Type::Callable,
                    _ => self.no_member(member, &base_ty),
                }
            }
            Type::Table(_) if name == "apply" => Type::Callable,
            _ if is_size_method(name) => Type::Callable,
            _ => self.no_member(member, &base_ty),
        }
    }

    fn no_member(&mut self, member: &crate::ast::Ident, ty: &Type) -> Type {
        let shown = self.show(ty);
        self.error(
            member.span,
            format!("`{shown}` has no member `{}`", member.name),
        );
        Type::Unknown
    }

    /// `error.X`, `E.A`, `T.minSizeInBits`.
    fn type_member(&mut self, e: &Expr, ty: &Type, member: &crate::ast::Ident) -> Type {
        let name = &member.name;
        match ty {
            Type::Error => {
                if !self.errors.contains(name) {
                    self.error(member.span, format!("error `{name}` is not declared"));
                }
                self.values.insert(
                    e.id,
                    Value::Member {
                        ty: "error".into(),
                        member: name.clone(),
                    },
                );
                Type::Error
            }
            Type::Named { id, .. } => match self
                .types
                .get(*id)
                .map(|d| (d.name.clone(), d.kind.clone()))
            {
                Some((
                    type_name,
                    TypeDefKind::Enum {
                        members,
                        underlying,
                    },
                )) => {
                    let Some((_, value)) = members.iter().find(|(m, _)| m == name) else {
                        self.error(
                            member.span,
                            format!("enum `{type_name}` has no member `{name}`"),
                        );
                        return Type::Unknown;
                    };
                    // Serializable members are their value; others are names.
                    let known = match (value, underlying) {
                        (Some(v), Some(u)) => Value::Int {
                            value: v.clone(),
                            ty: u,
                        },
                        _ => Value::Member {
                            ty: type_name,
                            member: name.clone(),
                        },
                    };
                    self.values.insert(e.id, known);
                    ty.clone()
                }
                Some((_, TypeDefKind::Block { is_decl: true, .. })) if name == "apply" => {
                    Type::Callable
                }
                _ if is_size_method(name) => Type::Callable,
                _ => self.no_member(member, &Type::TypeName(Box::new(ty.clone()))),
            },
            _ if is_size_method(name) => Type::Callable,
            _ => self.no_member(member, &Type::TypeName(Box::new(ty.clone()))),
        }
    }

    fn index_expr(&mut self, base: &Expr, index: &Expr) -> Type {
        let base_ty = self.expr(base);
        let index_ty = self.expr(index);
        let constant = self.values.get(&index.id).and_then(|v| v.int().cloned());
        if let Some(i) = &constant {
            if i.is_negative() {
                self.error(index.span, format!("index {i} is negative"));
                return Type::Unknown;
            }
        }
        let numeric = self.types.numeric(&index_ty);
        if !matches!(
            numeric,
            Type::Bit(_) | Type::Int(_) | Type::InfInt | Type::Unknown | Type::Var(_)
        ) {
            let shown = self.show(&index_ty);
            self.error(
                index.span,
                format!("index must be an integer, not `{shown}`"),
            );
        }
        match &base_ty {
            Type::Stack(elem, n) => {
                if let Some(i) = constant.and_then(|i| i.to_u64()) {
                    // A zero-size stack is still a type to measure.
                    if i >= u64::from(*n) && *n > 0 {
                        self.error(
                            index.span,
                            format!("index {i} is out of bounds of a stack of size {n}"),
                        );
                    }
                }
                (**elem).clone()
            }
            Type::Tuple(elems) | Type::ListExpr(elems) => match constant.and_then(|i| i.to_usize())
            {
                Some(i) => match elems.get(i) {
                    Some(t) => t.clone(),
                    None => {
                        self.error(
                            index.span,
                            format!(
                                "index {i} is out of bounds of a tuple of {} elements",
                                elems.len()
                            ),
                        );
                        Type::Unknown
                    }
                },
                None => {
                    self.error(
                        index.span,
                        "a tuple index must be a compile-time known integer",
                    );
                    Type::Unknown
                }
            },
            Type::Unknown | Type::Var(_) => Type::Unknown,
            _ => {
                let shown = self.show(&base_ty);
                self.error(base.span, format!("cannot index a value of type `{shown}`"));
                Type::Unknown
            }
        }
    }

    fn slice_expr(&mut self, e: &Expr, base: &Expr, hi: &Expr, lo: &Expr) -> Type {
        let base_ty = self.expr(base);
        let numeric = self.types.numeric(&base_ty);
        let width = match numeric {
            Type::Bit(w) | Type::Int(w) => Some(w),
            Type::InfInt | Type::Unknown | Type::Var(_) => None,
            _ => {
                let shown = self.show(&base_ty);
                self.error(base.span, format!("cannot slice a value of type `{shown}`"));
                None
            }
        };
        let (Some(h), Some(l)) = (
            self.const_int(hi, "slice bound"),
            self.const_int(lo, "slice bound"),
        ) else {
            return Type::Unknown;
        };
        if h < l {
            self.error(
                e.span,
                format!("slice [{h}:{l}] has its high bound below its low bound"),
            );
            return Type::Unknown;
        }
        if h >= consteval::MAX_WIDTH {
            self.error(e.span, format!("slice [{h}:{l}] is wider than any value"));
            return Type::Unknown;
        }
        if let Some(w) = width {
            if h >= w {
                let shown = self.show(&base_ty);
                self.error(
                    e.span,
                    format!("slice [{h}:{l}] is out of the bounds of `{shown}`"),
                );
            }
        }
        if let Some(v) = self.values.get(&base.id).and_then(|v| v.int().cloned()) {
            let ty = Type::Bit(h - l + 1);
            self.values
                .insert(e.id, int_value(consteval::slice(&v, h, l), &ty));
        }
        Type::Bit(h - l + 1)
    }

    /// `e[lo +: width]`: `lo` may be known only at run time.
    fn indexed_slice(&mut self, base: &Expr, lo: &Expr, width: &Expr) -> Type {
        let base_ty = self.expr(base);
        let lo_ty = self.expr(lo);
        let numeric = self.types.numeric(&base_ty);
        let base_width = match numeric {
            Type::Bit(w) | Type::Int(w) => Some(w),
            Type::Unknown | Type::Var(_) => None,
            _ => {
                let shown = self.show(&base_ty);
                self.error(base.span, format!("cannot slice a value of type `{shown}`"));
                None
            }
        };
        if !matches!(
            self.types.numeric(&lo_ty),
            Type::Bit(_) | Type::Int(_) | Type::InfInt | Type::Unknown
        ) {
            let shown = self.show(&lo_ty);
            self.error(
                lo.span,
                format!("slice start must be an integer, not `{shown}`"),
            );
        }
        let Some(w) = self.const_int(width, "slice width") else {
            return Type::Unknown;
        };
        if w == 0 || w > consteval::MAX_WIDTH {
            self.error(width.span, format!("slice width {w} is out of range"));
            return Type::Unknown;
        }
        let start = self.const_of(lo).and_then(|v| v.to_u64());
        if let (Some(bw), Some(start)) = (base_width, start) {
            if start + u64::from(w) > u64::from(bw) {
                let shown = self.show(&base_ty);
                self.error(
                    lo.span,
                    format!("slice [{start} +: {w}] is out of the bounds of `{shown}`"),
                );
            }
        }
        Type::Bit(w)
    }

    fn unary_expr(&mut self, e: &Expr, op: UnaryOp, operand: &Expr) -> Type {
        let ty = self.expr(operand);
        let numeric = self.types.numeric(&ty);
        let value = self.values.get(&operand.id).cloned();
        let ok = match op {
            UnaryOp::Not => matches!(ty, Type::Bool | Type::Unknown | Type::Var(_)),
            UnaryOp::Complement => matches!(
                numeric,
                Type::Bit(_) | Type::Int(_) | Type::Unknown | Type::Var(_)
            ),
            UnaryOp::Neg | UnaryOp::Plus => {
                matches!(
                    numeric,
                    Type::Bit(_) | Type::Int(_) | Type::InfInt | Type::Unknown | Type::Var(_)
                )
            }
        };
        if !ok {
            let shown = self.show(&ty);
            let sym = match op {
                UnaryOp::Not => "!",
                UnaryOp::Complement => "~",
                UnaryOp::Neg => "-",
                UnaryOp::Plus => "+",
            };
            self.error(
                e.span,
                format!("operator `{sym}` cannot be applied to `{shown}`"),
            );
            return Type::Unknown;
        }
        let folded = match (op, value) {
            (UnaryOp::Not, Some(Value::Bool(b))) => Some(Value::Bool(!b)),
            (UnaryOp::Neg, Some(Value::Int { value, .. })) => Some(int_value(-value, &numeric)),
            (UnaryOp::Plus, Some(v @ Value::Int { .. })) => Some(v),
            (UnaryOp::Complement, Some(Value::Int { value, .. })) => {
                Some(int_value(!value, &numeric))
            }
            _ => None,
        };
        if let Some(v) = folded {
            self.values.insert(e.id, v);
        }
        if op == UnaryOp::Not {
            Type::Bool
        } else {
            numeric
        }
    }

    fn binary_expr(&mut self, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Type {
        let lt = self.expr(lhs);
        let rt = self.expr(rhs);
        if matches!(lt, Type::Unknown) || matches!(rt, Type::Unknown) {
            return match op {
                BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge => Type::Bool,
                BinaryOp::And | BinaryOp::Or => Type::Bool,
                _ => Type::Unknown,
            };
        }
        super::calls::binary(self, e, op, lhs, rhs, lt, rt)
    }

    fn ternary_expr(&mut self, e: &Expr, cond: &Expr, then: &Expr, other: &Expr) -> Type {
        let ct = self.expr(cond);
        self.expect_bool(cond, &ct, "condition of `?:`");
        let a = self.expr(then);
        let b = self.expr(other);
        let ty = match self.meet(&a, &b) {
            Some(t) => t,
            None => {
                let (sa, sb) = (self.show(&a), self.show(&b));
                self.error(
                    e.span,
                    format!("branches of `?:` have different types `{sa}` and `{sb}`"),
                );
                return Type::Unknown;
            }
        };
        self.coerce(then, &ty, "branch of `?:`");
        self.coerce(other, &ty, "branch of `?:`");
        if let Some(Value::Bool(c)) = self.values.get(&cond.id) {
            let pick = if *c { then.id } else { other.id };
            if let Some(v) = self.values.get(&pick).cloned() {
                self.values.insert(e.id, v);
            }
        }
        ty
    }

    pub(super) fn expect_bool(&mut self, e: &Expr, ty: &Type, what: &str) {
        if !matches!(ty, Type::Bool | Type::Unknown | Type::Var(_)) {
            let shown = self.show(ty);
            self.error(e.span, format!("{what} must be `bool`, not `{shown}`"));
        }
    }

    fn struct_init(
        &mut self,
        e: &Expr,
        ty: Option<&crate::ast::TypeRef>,
        fields: &[(crate::ast::Ident, Expr)],
        rest: bool,
    ) -> Type {
        let mut given: Vec<(String, Type)> = fields
            .iter()
            .map(|(n, v)| (n.name.clone(), self.expr(v)))
            .collect();
        let values: Option<Vec<(String, Value)>> = fields
            .iter()
            .map(|(n, v)| self.values.get(&v.id).map(|x| (n.name.clone(), x.clone())))
            .collect();
        if let Some(values) = values {
            self.values.insert(e.id, Value::Struct(values));
        }
        let Some(ty) = ty else {
            if rest {
                given.push(("...".into(), Type::DontCare));
            }
            return Type::StructExpr(given);
        };
        let target = self.resolve_type(ty);
        if matches!(target, Type::Unknown) {
            return target;
        }
        let Some(declared) = self.types.fields(&target) else {
            let shown = self.show(&target);
            self.error(e.span, format!("`{shown}` is not a struct or header type"));
            return Type::Unknown;
        };
        for (name, value) in fields {
            match declared.iter().find(|(f, _)| *f == name.name) {
                Some((_, fty)) => self.coerce(value, fty, "field initializer"),
                None => {
                    let shown = self.show(&target);
                    self.error(name.span, format!("`{shown}` has no field `{}`", name.name));
                }
            }
        }
        if !rest {
            for (f, _) in &declared {
                if !fields.iter().any(|(n, _)| n.name == *f) {
                    let shown = self.show(&target);
                    self.error(
                        e.span,
                        format!("initializer of `{shown}` is missing field `{f}`"),
                    );
                }
            }
        }
        target
    }

    fn keyset_pair(&mut self, e: &Expr, a: &Expr, b: &Expr, op: &str) -> Type {
        let ta = self.expr(a);
        let tb = self.expr(b);
        let met = self.meet(&ta, &tb).or_else(|| {
            let (na, nb) = (self.types.numeric(&ta), self.types.numeric(&tb));
            self.meet(&na, &nb)
        });
        let Some(ty) = met else {
            let (sa, sb) = (self.show(&ta), self.show(&tb));
            self.error(
                e.span,
                format!("operands of `{op}` have different types `{sa}` and `{sb}`"),
            );
            return Type::Unknown;
        };
        let numeric = self.types.numeric(&ty);
        if !matches!(
            numeric,
            Type::Bit(_) | Type::Int(_) | Type::InfInt | Type::Unknown | Type::Var(_)
        ) {
            let shown = self.show(&ty);
            self.error(
                e.span,
                format!("operator `{op}` needs integer operands, not `{shown}`"),
            );
            return Type::Unknown;
        }
        self.coerce(a, &ty, op);
        self.coerce(b, &ty, op);
        Type::Keyset(Box::new(ty))
    }

    /// Whether `e` denotes a location that may be written.
    pub(super) fn is_lvalue(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Path(p) => matches!(
                self.scopes.lookup(&p.name.name, p.top_level),
                Some(Symbol::Value(v)) if v.writable
            ),
            ExprKind::Member { base, member } => {
                let base_ty = self.type_of(base.id);
                if matches!(base_ty, Type::Stack(..)) {
                    return matches!(member.name.as_str(), "next" | "last") && self.is_lvalue(base);
                }
                self.is_lvalue(base)
            }
            ExprKind::Index { base, .. } | ExprKind::Slice { base, .. } => self.is_lvalue(base),
            ExprKind::DontCare => true,
            _ => false,
        }
    }

    /// A compile-time integer value of `e`, if it has one.
    pub(super) fn const_of(&self, e: &Expr) -> Option<BigInt> {
        self.values.get(&e.id).and_then(|v| v.int().cloned())
    }
}

pub(super) fn is_header_method(name: &str) -> bool {
    matches!(name, "isValid" | "setValid" | "setInvalid") || is_size_method(name)
}

pub(super) fn is_size_method(name: &str) -> bool {
    matches!(
        name,
        "minSizeInBits" | "minSizeInBytes" | "maxSizeInBits" | "maxSizeInBytes"
    )
}
