//! Parameter lists: constructor parameters (of parsers, controls, packages
//! and extern constructors) have no direction; in actions, parameters
//! without a direction (set by the control plane) come after those with
//! one and are never of type `int`; `out` and `inout` parameters have no
//! default value, and default values call no function or action (they are
//! compile-time constants); `@optional` parameters have no default value
//! and are not allowed on functions (other than implementations of
//! abstract methods) or on constructor parameters of parsers and controls.

use super::walk::for_each_expr;
use super::Reporter;
use crate::ast::{
    Decl, DeclKind, Direction, ExprKind, MethodKind, Param, Program, TypeRefKind, TypedefTarget,
};
use std::collections::HashSet;

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let functions: HashSet<&str> = program
        .decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::Function { sig, .. }
            | DeclKind::ExternFunction { sig, .. }
            | DeclKind::Action { sig, .. } => Some(sig.name.name.as_str()),
            _ => None,
        })
        .collect();
    program
        .decls
        .iter()
        .for_each(|d| declaration(d, &functions, r));
}

fn declaration(decl: &Decl, functions: &HashSet<&str>, r: &mut Reporter) {
    match &decl.kind {
        DeclKind::Action { sig, .. } => {
            common(&sig.params, functions, r);
            action_params(&sig.params, r);
        }
        DeclKind::Function { sig, .. } => {
            common(&sig.params, functions, r);
            no_optional(&sig.params, r);
        }
        DeclKind::ExternFunction { sig, .. }
        | DeclKind::ParserType { sig }
        | DeclKind::ControlType { sig } => common(&sig.params, functions, r),
        DeclKind::PackageType { sig } => {
            common(&sig.params, functions, r);
            directionless(&sig.params, r);
        }
        DeclKind::ExternType { methods, .. } => {
            for m in methods {
                common(&m.sig.params, functions, r);
                if m.kind == MethodKind::Constructor {
                    directionless(&m.sig.params, r);
                }
            }
        }
        DeclKind::Parser {
            sig,
            ctor_params,
            locals,
            ..
        }
        | DeclKind::Control {
            sig,
            ctor_params,
            locals,
            ..
        } => {
            common(&sig.params, functions, r);
            common(ctor_params, functions, r);
            directionless(ctor_params, r);
            no_optional(ctor_params, r);
            locals.iter().for_each(|l| declaration(l, functions, r));
        }
        // Implementations of abstract methods repeat the extern's
        // parameters, `@optional` ones included.
        DeclKind::Instance {
            initializer: Some(methods),
            ..
        } => {
            for m in methods {
                if let DeclKind::Function { sig, .. } = &m.kind {
                    common(&sig.params, functions, r);
                }
            }
        }
        DeclKind::Typedef {
            target: TypedefTarget::Decl(inner),
            ..
        }
        | DeclKind::NewType {
            target: TypedefTarget::Decl(inner),
            ..
        } => declaration(inner, functions, r),
        _ => {}
    }
}

fn is_optional(p: &Param) -> bool {
    p.annotations.iter().any(|a| a.name.name == "optional")
}

/// Rules for every parameter list: defaults only on `in` or directionless,
/// non-optional parameters.
fn common(params: &[Param], functions: &HashSet<&str>, r: &mut Reporter) {
    for p in params {
        let Some(default) = &p.default else { continue };
        if matches!(p.direction, Some(Direction::Out | Direction::InOut)) {
            r.error(
                default.span,
                format!(
                    "`out` or `inout` parameter `{}` cannot have a default value",
                    p.name.name
                ),
            );
        } else if is_optional(p) {
            r.error(
                default.span,
                format!(
                    "optional parameter `{}` cannot have a default value",
                    p.name.name
                ),
            );
        }
        for_each_expr(default, &mut |e| {
            let ExprKind::Call { callee, .. } = &e.kind else {
                return;
            };
            let ExprKind::Path(f) = &callee.kind else {
                return;
            };
            if functions.contains(f.name.name.as_str()) {
                r.error(
                    e.span,
                    format!(
                        "the default value of `{}` must be a compile-time constant",
                        p.name.name
                    ),
                );
            }
        });
    }
}

fn directionless(params: &[Param], r: &mut Reporter) {
    for p in params.iter().filter(|p| p.direction.is_some()) {
        r.error(
            p.span,
            format!(
                "constructor parameter `{}` cannot have a direction",
                p.name.name
            ),
        );
    }
}

fn no_optional(params: &[Param], r: &mut Reporter) {
    for p in params.iter().filter(|p| is_optional(p)) {
        r.error(
            p.name.span,
            format!("optional parameter `{}` is not allowed here", p.name.name),
        );
    }
}

fn action_params(params: &[Param], r: &mut Reporter) {
    let mut control_plane = false;
    for p in params {
        match p.direction {
            None => control_plane = true,
            Some(_) if control_plane => r.error(
                p.span,
                format!(
                    "action parameter `{}` with a direction follows a parameter without one",
                    p.name.name
                ),
            ),
            Some(_) => {}
        }
        if matches!(p.ty.kind, TypeRefKind::InfInt) {
            r.error(
                p.name.span,
                format!("action parameter `{}` cannot have type `int`", p.name.name),
            );
        }
    }
}
