//! Parser state machines: `accept` and `reject` are built in and cannot be
//! declared, a `start` state must exist, every transition names a state of
//! the same parser (or `accept`/`reject`), and some state reachable from
//! `start` must lead out of the parser. A state without a `transition`
//! statement goes to `reject`, as in the reference compiler. A select case
//! after a `default`/`_` case can never match: a warning.

use super::Reporter;
use crate::ast::{DeclKind, ExprKind, Ident, ParserState, Path, Program, Transition};
use std::collections::{HashMap, HashSet};

pub(super) fn check(program: &Program, r: &mut Reporter) {
    for decl in &program.decls {
        if let DeclKind::Parser { sig, states, .. } = &decl.kind {
            parser(&sig.name, states, r);
        }
    }
}

const BUILT_IN: [&str; 2] = ["accept", "reject"];

fn parser(name: &Ident, states: &[ParserState], r: &mut Reporter) {
    let mut by_name: HashMap<&str, &ParserState> = HashMap::new();
    for s in states {
        if BUILT_IN.contains(&s.name.name.as_str()) {
            r.error(
                s.name.span,
                format!("state `{}` is built in and cannot be declared", s.name.name),
            );
        } else {
            by_name.entry(&s.name.name).or_insert(s);
        }
    }
    for s in states {
        for target in targets(s) {
            if !BUILT_IN.contains(&target.name.name.as_str())
                && !by_name.contains_key(target.name.name.as_str())
            {
                r.error(
                    target.span,
                    format!(
                        "`{}` is not a state of parser `{}`",
                        target.name.name, name.name
                    ),
                );
            }
        }
        unreachable_cases(s, r);
    }
    match by_name.get("start") {
        None => r.error(
            name.span,
            format!("parser `{}` has no `start` state", name.name),
        ),
        Some(start) => {
            if !leaves(start, &by_name) {
                r.error(
                    name.span,
                    format!("parser `{}` never reaches `accept` or `reject`", name.name),
                );
            }
        }
    }
}

/// The states a state may go to, as written.
fn targets(s: &ParserState) -> Vec<&Path> {
    match &s.transition {
        None => Vec::new(),
        Some(Transition::Direct(p)) => vec![p],
        Some(Transition::Select { cases, .. }) => cases.iter().map(|c| &c.state).collect(),
    }
}

/// Whether some state reachable from `start` goes to `accept` or `reject`
/// (a missing transition or one to an unknown state counts: those are
/// reported on their own or reject at run time).
fn leaves(start: &ParserState, states: &HashMap<&str, &ParserState>) -> bool {
    let mut visited: HashSet<&str> = HashSet::from([start.name.name.as_str()]);
    let mut stack: Vec<&ParserState> = vec![start];
    while let Some(s) = stack.pop() {
        let next = targets(s);
        if next.is_empty() {
            return true;
        }
        for t in next {
            match states.get(t.name.name.as_str()) {
                None => return true,
                Some(n) if visited.insert(&n.name.name) => {
                    stack.push(*n);
                }
                Some(_) => {}
            }
        }
    }
    false
}

fn unreachable_cases(s: &ParserState, r: &mut Reporter) {
    let Some(Transition::Select { cases, .. }) = &s.transition else {
        return;
    };
    let catch_all = cases
        .iter()
        .position(|c| matches!(c.keyset.kind, ExprKind::Default | ExprKind::DontCare));
    if let Some(after) = catch_all.and_then(|i| cases.get(i + 1)) {
        r.warning(after.span, "select case after `default` can never match");
    }
}
