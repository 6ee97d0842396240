//! Control-plane names of actions (spec 18.3.3, `@name`): every action has
//! a fully-qualified name the control plane knows it by, and two actions
//! may not share one. A top-level action `a` is `.a`; an action `a` in
//! control `C` is `.C.a`; `@name("x")` replaces the last part (`.x` at the
//! top level, `.C.x` in `C`) and `@name(".x")` gives the absolute name
//! `.x`. Only actions some table lists reach the control plane. Tables and extern instances are named per instance, so their
//! clashes are found after `main` is evaluated (`check::control_plane`).

use super::Reporter;
use crate::ast::{Annotation, AnnotationBody, DeclKind, ExprKind, Program, TablePropertyKind};
use crate::source::Span;
use std::collections::{HashMap, HashSet};

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let used = actions_in_tables(program);
    let mut names: HashMap<String, (Span, String)> = HashMap::new();
    for decl in &program.decls {
        match &decl.kind {
            DeclKind::Action { sig, .. } if used.contains(&(None, sig.name.name.as_str())) => {
                let name = qualified(&[], &sig.name.name, &decl.annotations);
                claim(&mut names, name, sig.name.span, &sig.name.name, r);
            }
            DeclKind::Control { sig, locals, .. } => {
                for local in locals {
                    let DeclKind::Action { sig: action, .. } = &local.kind else {
                        continue;
                    };
                    let key = (Some(sig.name.name.as_str()), action.name.name.as_str());
                    if !used.contains(&key) {
                        continue;
                    }
                    let scope = [sig.name.name.as_str()];
                    let name = qualified(&scope, &action.name.name, &local.annotations);
                    claim(&mut names, name, action.name.span, &action.name.name, r);
                }
            }
            _ => {}
        }
    }
}

/// The actions some table lists, as (enclosing control, name): only those
/// reach the control plane (an unused action, such as the core library's
/// `NoAction` where a program declares its own, has no name there).
fn actions_in_tables(program: &Program) -> HashSet<(Option<&str>, &str)> {
    let mut used = HashSet::new();
    for decl in &program.decls {
        let DeclKind::Control { sig, locals, .. } = &decl.kind else {
            continue;
        };
        let is_local_action = |name: &str| {
            locals
                .iter()
                .any(|l| matches!(&l.kind, DeclKind::Action { sig, .. } if sig.name.name == name))
        };
        for local in locals {
            let DeclKind::Table { properties, .. } = &local.kind else {
                continue;
            };
            let lists = properties.iter().filter_map(|p| match &p.kind {
                TablePropertyKind::Actions(list) => Some(list),
                _ => None,
            });
            for a in lists.flatten() {
                let name = a.name.name.name.as_str();
                let local_action = !a.name.top_level && is_local_action(name);
                used.insert((local_action.then_some(sig.name.name.as_str()), name));
            }
        }
    }
    used
}

/// Records that action `action` (declared at `at`) has control-plane
/// name `name`, reporting an earlier action with the same one.
fn claim(
    names: &mut HashMap<String, (Span, String)>,
    name: String,
    at: Span,
    action: &str,
    r: &mut Reporter,
) {
    match names.get(&name) {
        Some((first, other)) => r.error_with_note(
            at,
            format!("action `{action}` has control-plane name `{name}`, already the name of action `{other}`"),
            *first,
            "the other action is declared here",
        ),
        None => {
            names.insert(name, (at, action.to_string()));
        }
    }
}

/// The fully-qualified name of a declaration named `own` inside the
/// blocks `scope`, honouring its `@name`.
fn qualified(scope: &[&str], own: &str, annotations: &[Annotation]) -> String {
    match name_annotation(annotations) {
        Some(absolute) if absolute.starts_with('.') => absolute.to_string(),
        Some(local) => join(scope, local),
        None => join(scope, own),
    }
}

fn join(scope: &[&str], last: &str) -> String {
    scope
        .iter()
        .chain(std::iter::once(&last))
        .fold(String::new(), |name, part| name + "." + part)
}

/// The string of `@name("...")`, when it is a plain literal.
pub(in crate::check) fn name_annotation(annotations: &[Annotation]) -> Option<&str> {
    let a = annotations.iter().find(|a| a.name.name == "name")?;
    let AnnotationBody::Expressions(list) = &a.body else {
        return None;
    };
    match list.as_slice() {
        [e] => match &e.kind {
            ExprKind::String(s) => Some(s.as_str()),
            _ => None,
        },
        _ => None,
    }
}
