//! Types as written ([`ast::TypeRef`]) become semantic [`Type`]s.
//!
//! Widths and stack sizes must be compile-time known integers (evaluated
//! through the expression checker); names must denote types declared
//! before; generic types take exactly their number of type arguments, and
//! a specialized header, union or struct must still be well formed (`H<int>`
//! is not a header). `_` is refused where a type must be complete.

use super::consteval::MAX_WIDTH;
use super::decls::StructKind;
use super::env::Symbol;
use super::types::{Type, TypeDefKind};
use super::Checker;
use crate::ast::{self, TypeRef, TypeRefKind};
use crate::diag::counted;
use num_traits::{Signed, ToPrimitive};

impl Checker<'_> {
    /// Runs `f` with type variables in scope.
    pub(super) fn with_type_params<R>(
        &mut self,
        params: &[String],
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        if params.is_empty() {
            return f(self);
        }
        self.scopes.push();
        for p in params {
            self.scopes.declare(p, Symbol::Type(Type::Var(p.clone())));
        }
        let r = f(self);
        self.scopes.pop();
        r
    }

    /// Reports `_` inside a type that must be complete.
    pub(super) fn reject_dont_care(&mut self, t: &TypeRef, what: &str) {
        if let Some(span) = dont_care_in(t) {
            self.error(span, format!("`_` cannot be used in {what}"));
        }
    }

    /// Evaluates a compile-time-known non-negative integer (a width, a
    /// size); reports and returns `None` when it is not one.
    pub(super) fn const_int(&mut self, e: &ast::Expr, what: &str) -> Option<u32> {
        self.expr(e);
        let value = self.values.get(&e.id).and_then(|v| v.int().cloned());
        match value {
            Some(v) if v.is_negative() => {
                self.error(e.span, format!("{what} must not be negative, found {v}"));
                None
            }
            Some(v) => match v.to_u32() {
                Some(n) => Some(n),
                None => {
                    self.error(e.span, format!("{what} {v} is too large"));
                    None
                }
            },
            None => {
                self.error(
                    e.span,
                    format!("{what} must be a compile-time known integer"),
                );
                None
            }
        }
    }

    /// The semantic type of a type as written; reports unknown names.
    pub(super) fn resolve_type(&mut self, t: &TypeRef) -> Type {
        match &t.kind {
            TypeRefKind::Bool => Type::Bool,
            TypeRefKind::Error => Type::Error,
            TypeRefKind::MatchKind => Type::MatchKind,
            TypeRefKind::String => Type::String,
            TypeRefKind::Void => Type::Void,
            TypeRefKind::InfInt => Type::InfInt,
            TypeRefKind::Bit(w) => self.width(w, "bit").map_or(Type::Unknown, Type::Bit),
            TypeRefKind::Int(w) => match self.width(w, "int") {
                Some(0) => {
                    self.error(w.span, "width of `int<W>` must be positive");
                    Type::Unknown
                }
                Some(n) => Type::Int(n),
                None => Type::Unknown,
            },
            TypeRefKind::Varbit(w) => self.width(w, "varbit").map_or(Type::Unknown, Type::Varbit),
            TypeRefKind::Named { path, args } => self.named_type(path, args, t),
            TypeRefKind::Stack { elem, size } => {
                let elem = self.resolve_type(elem);
                match self.const_int(size, "stack size") {
                    Some(n) => Type::Stack(Box::new(elem), n),
                    None => Type::Unknown,
                }
            }
            TypeRefKind::Tuple(ts) => {
                let elems: Vec<Type> = ts.iter().map(|t| self.resolve_type(t)).collect();
                if let Some(bad) = elems.iter().find(|e| self.is_object_type(e)) {
                    let shown = self.show(bad);
                    self.error(t.span, format!("a tuple cannot contain `{shown}`"));
                    return Type::Unknown;
                }
                Type::Tuple(elems)
            }
            TypeRefKind::List(e) => Type::List(Box::new(self.resolve_type(e))),
            TypeRefKind::DontCare => Type::Unknown,
        }
    }

    fn width(&mut self, w: &ast::Expr, what: &str) -> Option<u32> {
        let n = self.const_int(w, &format!("width of `{what}<W>`"))?;
        if n > MAX_WIDTH {
            self.error(w.span, format!("width {n} is too large"));
            return None;
        }
        Some(n)
    }

    fn named_type(&mut self, path: &ast::Path, args: &[TypeRef], t: &TypeRef) -> Type {
        let Some(found) = self
            .scopes
            .lookup_type(&path.name.name, path.top_level)
            .cloned()
        else {
            let what = match self.scopes.lookup(&path.name.name, path.top_level) {
                Some(_) => "is not a type",
                None => "is not declared",
            };
            self.error(path.span, format!("type `{}` {what}", path.name.name));
            return Type::Unknown;
        };
        let arg_types: Vec<Type> = args.iter().map(|a| self.resolve_type(a)).collect();
        if let Some((arg, _)) = args
            .iter()
            .zip(&arg_types)
            .find(|(_, t)| self.is_object_type(t))
        {
            self.error(
                arg.span,
                format!(
                    "type argument of `{}` cannot be an extern, parser, control or package",
                    path.name.name
                ),
            );
            return Type::Unknown;
        }
        let Type::Named { id, args: existing } = &found else {
            if !arg_types.is_empty() {
                self.error(
                    t.span,
                    format!("type `{}` takes no type arguments", path.name.name),
                );
            }
            return found;
        };
        if !existing.is_empty() && !arg_types.is_empty() {
            self.error(
                t.span,
                format!(
                    "`{}` is already specialized and takes no type arguments",
                    path.name.name
                ),
            );
            return Type::Unknown;
        }
        if arg_types.is_empty() {
            let generic = self
                .types
                .get(*id)
                .is_some_and(|d| !d.type_params.is_empty());
            let structured = matches!(
                self.types.kind(&found),
                Some(
                    TypeDefKind::Header { .. }
                        | TypeDefKind::HeaderUnion { .. }
                        | TypeDefKind::Struct { .. }
                )
            );
            if generic && structured && existing.is_empty() {
                self.error(
                    t.span,
                    format!("generic type `{}` needs type arguments", path.name.name),
                );
                return Type::Unknown;
            }
            return found;
        }
        let expected = self.types.get(*id).map_or(0, |d| d.type_params.len());
        if expected != arg_types.len() {
            self.error(
                t.span,
                format!(
                    "type `{}` takes {}, {} given",
                    path.name.name,
                    counted(expected, "type argument"),
                    arg_types.len()
                ),
            );
            return Type::Unknown;
        }
        let specialized = Type::Named {
            id: *id,
            args: arg_types,
        };
        self.check_specialized(path, &specialized);
        specialized
    }

    /// Fields of a specialized generic header, union or struct must still
    /// be allowed there (`H<int>` is not a header).
    fn check_specialized(&mut self, path: &ast::Path, ty: &Type) {
        let kind = match self.types.kind(ty) {
            Some(TypeDefKind::Header { .. }) => StructKind::Header,
            Some(TypeDefKind::HeaderUnion { .. }) => StructKind::Union,
            Some(TypeDefKind::Struct { .. }) => StructKind::Struct,
            _ => return,
        };
        for (name, fty) in self.types.fields(ty).unwrap_or_default() {
            if mentions_type(&fty, ty) {
                self.error(
                    path.span,
                    format!(
                        "`{}` would contain itself through field `{name}`",
                        path.name.name
                    ),
                );
                return;
            }
            let field = ast::Ident {
                name,
                span: path.span,
            };
            self.check_field_type(kind, &field, &fty);
        }
    }
}

/// Whether `ty` is or contains the named type `owner`.
pub(super) fn mentions_type(ty: &Type, owner: &Type) -> bool {
    if let (Type::Named { id: a, .. }, Type::Named { id: b, .. }) = (ty, owner) {
        if a == b {
            return true;
        }
    }
    match ty {
        Type::Named { args, .. } | Type::Tuple(args) => {
            args.iter().any(|t| mentions_type(t, owner))
        }
        Type::Stack(e, _) | Type::List(e) => mentions_type(e, owner),
        _ => false,
    }
}

/// The span of a `_` inside a type as written.
fn dont_care_in(t: &TypeRef) -> Option<crate::source::Span> {
    match &t.kind {
        TypeRefKind::DontCare => Some(t.span),
        TypeRefKind::Named { args, .. } | TypeRefKind::Tuple(args) => {
            args.iter().find_map(dont_care_in)
        }
        TypeRefKind::Stack { elem, .. } | TypeRefKind::List(elem) => dont_care_in(elem),
        _ => None,
    }
}
