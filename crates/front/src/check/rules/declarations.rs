//! Declarations in the wrong shape or place: actions in parsers, value
//! sets in controls, instantiations of something that is not a named type
//! (or an array of one), a parser or control instantiating itself, an
//! extern named `main` (the name of the package instance the program runs),
//! `NoAction` with parameters, and enum members with a value in a plain
//! enum or without one in a serializable enum. (Extern methods named like
//! their extern but with a return type are the parser's to reject.)

use super::Reporter;
use crate::ast::{Decl, DeclKind, Ident, Program, TypeRefKind};

pub(super) fn check(program: &Program, r: &mut Reporter) {
    for decl in &program.decls {
        special_names(decl, r);
        enum_members(decl, r);
        match &decl.kind {
            DeclKind::Instance { .. } => instance(decl, None, r),
            DeclKind::Parser { sig, locals, .. } | DeclKind::Control { sig, locals, .. } => {
                let in_parser = matches!(decl.kind, DeclKind::Parser { .. });
                for local in locals {
                    instance(local, Some(&sig.name), r);
                    local_kind(local, in_parser, r);
                }
            }
            _ => {}
        }
    }
}

/// Members of a serializable enum (one with an underlying type) all have a
/// value; members of a plain enum have none.
fn enum_members(decl: &Decl, r: &mut Reporter) {
    let DeclKind::Enum {
        name,
        underlying,
        members,
    } = &decl.kind
    else {
        return;
    };
    for m in members {
        match (underlying.is_some(), m.value.is_some()) {
            (true, false) => r.error(
                m.name.span,
                format!(
                    "member `{}` of serializable enum `{}` needs a value",
                    m.name.name, name.name
                ),
            ),
            (false, true) => r.error(
                m.name.span,
                format!(
                    "member `{}` of enum `{}` cannot have a value: the enum has no underlying type",
                    m.name.name, name.name
                ),
            ),
            _ => {}
        }
    }
}

/// Names the language gives a meaning: `main` is the package instance the
/// program runs, `NoAction` the action tables default to.
fn special_names(decl: &Decl, r: &mut Reporter) {
    match &decl.kind {
        DeclKind::Action { sig, .. } if sig.name.name == "NoAction" && !sig.params.is_empty() => {
            r.error(sig.name.span, "action `NoAction` cannot have parameters")
        }
        DeclKind::ExternType { name, .. } if name.name == "main" => r.error(
            name.span,
            "`main` must be an instance of a package, not an extern",
        ),
        _ => {}
    }
}

/// Actions belong in controls, value sets in parsers (tables are checked
/// with the other table rules).
fn local_kind(local: &Decl, in_parser: bool, r: &mut Reporter) {
    match &local.kind {
        DeclKind::Action { sig, .. } if in_parser => r.error(
            sig.name.span,
            format!("action `{}` cannot be declared in a parser", sig.name.name),
        ),
        DeclKind::ValueSet { name, .. } if !in_parser => r.error(
            name.span,
            format!("value set `{}` can only be declared in a parser", name.name),
        ),
        _ => {}
    }
}

/// An instantiation must name a type (possibly as an array of instances),
/// and not the block it is in.
fn instance(decl: &Decl, enclosing: Option<&Ident>, r: &mut Reporter) {
    let DeclKind::Instance { ty, name, .. } = &decl.kind else {
        return;
    };
    let named = match &ty.kind {
        TypeRefKind::Stack { elem, .. } => elem,
        _ => ty,
    };
    let type_name = match &named.kind {
        TypeRefKind::Named { path, .. } => &path.name.name,
        _ => {
            return r.error(
                ty.span,
                format!(
                    "`{}` cannot be instantiated",
                    r.text(ty.span).trim().to_owned()
                ),
            )
        }
    };
    if let Some(block) = enclosing.filter(|b| &b.name == type_name) {
        r.error(
            ty.span,
            format!(
                "`{}` cannot instantiate itself in `{}`",
                block.name, name.name
            ),
        );
    }
}
