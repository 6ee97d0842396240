//! Types that refer to themselves, which P4 does not support: a struct,
//! header or header union with a field of its own type (directly, as a
//! stack element or a type argument), and an extern whose methods take or
//! return the extern itself. A type parameter of the same name hides the
//! declaration and is not a self-reference.

use super::Reporter;
use crate::ast::{DeclKind, Ident, Program, TypeRef, TypeRefKind};

pub(super) fn check(program: &Program, r: &mut Reporter) {
    for decl in &program.decls {
        match &decl.kind {
            DeclKind::Struct {
                name,
                type_params,
                fields,
            }
            | DeclKind::Header {
                name,
                type_params,
                fields,
            }
            | DeclKind::HeaderUnion {
                name,
                type_params,
                fields,
            } => {
                if hidden(name, type_params) {
                    continue;
                }
                for f in fields {
                    self_reference(name, &f.ty, r);
                }
            }
            DeclKind::ExternType {
                name,
                type_params,
                methods,
            } => {
                if hidden(name, type_params) {
                    continue;
                }
                for m in methods.iter().filter(|m| !hidden(name, &m.sig.type_params)) {
                    m.return_type
                        .iter()
                        .for_each(|t| self_reference(name, t, r));
                    m.sig
                        .params
                        .iter()
                        .for_each(|p| self_reference(name, &p.ty, r));
                }
            }
            _ => {}
        }
    }
}

fn hidden(name: &Ident, type_params: &[Ident]) -> bool {
    type_params.iter().any(|t| t.name == name.name)
}

/// Reports `ty` if it names `owner` anywhere in it.
fn self_reference(owner: &Ident, ty: &TypeRef, r: &mut Reporter) {
    if mentions(owner, ty) {
        r.error(
            ty.span,
            format!("`{}` refers to itself, which is not supported", owner.name),
        );
    }
}

fn mentions(owner: &Ident, ty: &TypeRef) -> bool {
    match &ty.kind {
        TypeRefKind::Named { path, args } => {
            path.name.name == owner.name || args.iter().any(|a| mentions(owner, a))
        }
        TypeRefKind::Stack { elem, .. } | TypeRefKind::List(elem) => mentions(owner, elem),
        TypeRefKind::Tuple(items) => items.iter().any(|a| mentions(owner, a)),
        _ => false,
    }
}
