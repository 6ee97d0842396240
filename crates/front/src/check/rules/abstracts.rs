//! Instances of extern types with abstract methods. The initializer of such
//! an instance implements every abstract method not marked `@optional`, and
//! each method it defines is one of the extern's abstract methods (same
//! name, and number of parameters up to `@optional` ones) with the same
//! parameter directions. An
//! instance or constructor call without an initializer cannot supply the
//! methods, so it is an error when some are required.
//!
//! Only externs declared at the top level under a name no other declaration
//! uses are looked at.

use super::walk::for_each_expr;
use super::Reporter;
use crate::ast::{Argument, Decl, DeclKind, ExprKind, Method, MethodKind, Program, TypeRefKind};
use std::collections::HashMap;

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let mut externs: HashMap<&str, Option<&[Method]>> = HashMap::new();
    for d in &program.decls {
        if let Some(name) = d.name() {
            let methods = match &d.kind {
                DeclKind::ExternType { methods, .. } => Some(methods.as_slice()),
                _ => None,
            };
            externs
                .entry(&name.name)
                .and_modify(|m| *m = None)
                .or_insert(methods);
        }
    }
    let externs = Externs(externs);
    for d in &program.decls {
        match &d.kind {
            DeclKind::Parser { locals, .. } | DeclKind::Control { locals, .. } => {
                locals.iter().for_each(|l| externs.instance(l, r))
            }
            _ => externs.instance(d, r),
        }
    }
}

struct Externs<'p>(HashMap<&'p str, Option<&'p [Method]>>);

fn optional(m: &Method) -> bool {
    m.annotations.iter().any(|a| a.name.name == "optional")
}

impl Externs<'_> {
    /// The abstract methods of extern `name` that an instance must define.
    fn required(&self, name: &str) -> Vec<&Method> {
        let methods = self.0.get(name).copied().flatten().unwrap_or(&[]);
        methods
            .iter()
            .filter(|m| m.kind == MethodKind::Abstract && !optional(m))
            .collect()
    }

    fn instance(&self, decl: &Decl, r: &mut Reporter) {
        let DeclKind::Instance {
            ty,
            args,
            name,
            initializer,
        } = &decl.kind
        else {
            return;
        };
        self.constructor_calls(args, r);
        let TypeRefKind::Named { path, .. } = &ty.kind else {
            return;
        };
        let extern_name = path.name.name.as_str();
        let Some(Some(methods)) = self.0.get(extern_name) else {
            return;
        };
        let Some(impls) = initializer else {
            if let Some(m) = self.required(extern_name).first() {
                r.error(
                    name.span,
                    format!(
                        "instance `{}` must implement abstract method `{}` of `{extern_name}`",
                        name.name, m.sig.name.name
                    ),
                );
            }
            return;
        };
        for imp in impls {
            let DeclKind::Function { sig, .. } = &imp.kind else {
                continue;
            };
            let abstract_method = methods.iter().find(|m| {
                let required = m
                    .sig
                    .params
                    .iter()
                    .filter(|p| !p.annotations.iter().any(|a| a.name.name == "optional"));
                let arity = required.count()..=m.sig.params.len();
                m.kind == MethodKind::Abstract
                    && m.sig.name.name == sig.name.name
                    && arity.contains(&sig.params.len())
            });
            let Some(abstract_method) = abstract_method else {
                r.error(
                    sig.name.span,
                    format!(
                        "`{}` is not an abstract method of `{extern_name}`",
                        sig.name.name
                    ),
                );
                continue;
            };
            // With optional parameters left out, positions no longer match.
            let same_arity = abstract_method.sig.params.len() == sig.params.len();
            for (p, expected) in sig
                .params
                .iter()
                .zip(&abstract_method.sig.params)
                .filter(|_| same_arity)
            {
                if p.direction != expected.direction {
                    r.error(
                        p.span,
                        format!(
                            "parameter `{}` has another direction than in abstract method `{}`",
                            p.name.name, sig.name.name
                        ),
                    );
                }
            }
        }
        for m in self.required(extern_name) {
            let implemented = impls
                .iter()
                .any(|i| i.name().is_some_and(|n| n.name == m.sig.name.name));
            if !implemented {
                r.error(
                    name.span,
                    format!(
                        "instance `{}` does not implement abstract method `{}`",
                        name.name, m.sig.name.name
                    ),
                );
            }
        }
    }

    /// Constructor calls in instantiation arguments, e.g. `p(g())`.
    fn constructor_calls(&self, args: &[Argument], r: &mut Reporter) {
        for a in args {
            for_each_expr(&a.value, &mut |e| {
                let ExprKind::Call { callee, .. } = &e.kind else {
                    return;
                };
                let ExprKind::Path(p) = &callee.kind else {
                    return;
                };
                if let Some(m) = self.required(&p.name.name).first() {
                    r.error(
                        e.span,
                        format!("`{}` has abstract method `{}`, so it needs an instance with an initializer", p.name.name, m.sig.name.name),
                    );
                }
            });
        }
    }
}
