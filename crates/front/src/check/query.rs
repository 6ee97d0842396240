//! Read-only queries on a [`CheckedProgram`], for the back end: the type
//! and compile-time value of an expression, the type of a declaration, the
//! code of an enum member. The back end asks these instead of typing or
//! evaluating anything itself; nothing here computes a new fact.

use super::consteval::Value;
use super::types::{Type, TypeDefKind};
use super::CheckedProgram;
use crate::ast::{Expr, ExprKind, Ident};

impl CheckedProgram {
    /// The type of `e` after implicit casts (`Unknown` if the checker had
    /// none).
    pub fn type_of(&self, e: &Expr) -> &Type {
        self.expr_types
            .get(e.id.0 as usize)
            .unwrap_or(&Type::Unknown)
    }

    /// The value of `e` when it is known at compile time; for a field of
    /// a constant of struct type (`C.f`), that field of its value.
    pub fn value_of(&self, e: &Expr) -> Option<&Value> {
        if let Some(v) = self.values.get(&e.id) {
            return Some(v);
        }
        let ExprKind::Member { base, member } = &e.kind else {
            return None;
        };
        match self.value_of(base)? {
            Value::Struct(fields) => fields
                .iter()
                .find(|(name, _)| *name == member.name)
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The declared type of a variable, constant, parameter or instance,
    /// given the name in its declaration.
    pub fn decl_type(&self, name: &Ident) -> Option<&Type> {
        self.decl_types.get(&name.span)
    }

    /// The position of `member` in the non-serializable enum `ty`: its
    /// code in the data path.
    pub fn enum_code(&self, ty: &Type, member: &str) -> Option<u32> {
        match self.types.kind(ty)? {
            TypeDefKind::Enum { members, .. } => members
                .iter()
                .position(|(m, _)| m == member)
                .and_then(|i| u32::try_from(i).ok()),
            _ => None,
        }
    }

    /// `ty` with the type variables `params` replaced by `args`.
    pub fn substitute(&self, ty: &Type, params: &[String], args: &[Type]) -> Type {
        super::types::subst(ty, params, args)
    }

    /// The non-serializable enum called `name`, for a member value that
    /// names its type.
    pub fn enum_named(&self, name: &str) -> Option<Type> {
        let index = self
            .types
            .defs
            .iter()
            .position(|d| d.name == name && matches!(d.kind, TypeDefKind::Enum { .. }))?;
        Some(Type::Named {
            id: super::TypeId(u32::try_from(index).ok()?),
            args: vec![],
        })
    }
}
