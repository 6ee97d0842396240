//! Tables: declared only in controls, with an `actions` list naming each
//! action once and binding exactly its parameters with a direction, and a
//! `default_action` and entries that name listed actions and give every
//! argument, repeating those the list binds. `@tableonly` actions cannot be
//! defaults, `@defaultonly` ones cannot be entries. Key expressions do not
//! name the table itself and can name themselves in the control plane
//! ([`keys`]); [`entries`] has the rules on `entries`. `size` and
//! `priority_delta` are numbers, `largest_priority_wins` a boolean; `key`
//! and `actions` cannot be `const`.
//!
//! Actions are found by spelling: in the enclosing control, then at the top
//! level. Match kinds are recognised by their standard names (`exact`,
//! `lpm`).

mod entries;
mod keys;

use super::walk::for_each_expr;
use super::Reporter;
use crate::ast::{
    ActionRef, Argument, Decl, DeclKind, Expr, ExprKind, Ident, KeyElement, Param, Path, Program,
    TableProperty, TablePropertyKind,
};
use crate::diag::counted;
use crate::source::Span;
use std::collections::HashMap;

pub(super) fn check(program: &Program, r: &mut Reporter) {
    let top_actions = actions_of(&program.decls);
    for decl in &program.decls {
        match &decl.kind {
            DeclKind::Control { locals, .. } => {
                let local_actions = actions_of(locals);
                for local in locals {
                    if let DeclKind::Table { name, properties } = &local.kind {
                        let actions = Actions {
                            local: &local_actions,
                            top: &top_actions,
                        };
                        Table {
                            name: &name.name,
                            span: name.span,
                            properties,
                            actions,
                        }
                        .check(r);
                    }
                }
            }
            DeclKind::Parser { locals, .. } => locals.iter().for_each(|d| misplaced(d, r)),
            _ => misplaced(decl, r),
        }
    }
}

fn misplaced(decl: &Decl, r: &mut Reporter) {
    if let DeclKind::Table { name, .. } = &decl.kind {
        r.error(
            name.span,
            format!("table `{}` can only be declared in a control", name.name),
        );
    }
}

/// Actions by name with their parameters: in one scope, or, when a name is
/// overloaded (an error reported elsewhere), without parameters.
type ActionScope<'a> = HashMap<&'a str, Option<&'a [Param]>>;

fn actions_of(decls: &[Decl]) -> ActionScope<'_> {
    let mut out: ActionScope = HashMap::new();
    for d in decls {
        if let DeclKind::Action { sig, .. } = &d.kind {
            out.entry(&sig.name.name)
                .and_modify(|p| *p = None)
                .or_insert(Some(&sig.params));
        }
    }
    out
}

/// The actions a table can see: its control's, then the top level's.
#[derive(Clone, Copy)]
struct Actions<'a> {
    local: &'a ActionScope<'a>,
    top: &'a ActionScope<'a>,
}

impl<'a> Actions<'a> {
    /// The parameters of the action `path` denotes, when known.
    fn params(&self, path: &Path) -> Option<&'a [Param]> {
        let name = path.name.name.as_str();
        match self.local.get(name) {
            Some(local) if !path.top_level => *local,
            _ => self.top.get(name).copied().flatten(),
        }
    }
}

struct Table<'a> {
    name: &'a str,
    span: Span,
    properties: &'a [TableProperty],
    actions: Actions<'a>,
}

impl<'a> Table<'a> {
    fn check(&self, r: &mut Reporter) {
        let mut keys: Option<&[KeyElement]> = None;
        let mut actions: Option<&[ActionRef]> = None;
        for p in self.properties {
            let what = match &p.kind {
                TablePropertyKind::Key(_) => Some("key"),
                TablePropertyKind::Actions(_) => Some("actions"),
                _ => None,
            };
            if let Some(what) = what.filter(|_| p.is_const) {
                r.error(
                    p.span,
                    format!("the `{what}` of a table cannot be declared `const`"),
                );
            }
            match &p.kind {
                TablePropertyKind::Key(k) => {
                    keys = Some(k);
                    k.iter().for_each(|k| keys::key_name(k, r));
                    k.iter().for_each(|k| self.no_self_reference(&k.expr, r));
                }
                TablePropertyKind::Actions(a) => {
                    actions = Some(a);
                    self.action_list(a, r);
                }
                TablePropertyKind::Entries(entries) => match keys {
                    Some(k) => self.entries(p, entries, k, r),
                    None if self.has_key() => r.error(
                        p.span,
                        format!("entries of table `{}` must come after its key", self.name),
                    ),
                    None if !entries.is_empty() => r.error(
                        p.span,
                        format!("table `{}` has entries but no key", self.name),
                    ),
                    None => {}
                },
                TablePropertyKind::Other { name, value } => standard_property(name, value, r),
                TablePropertyKind::DefaultAction(_) => {}
            }
        }
        let Some(actions) = actions else {
            r.error(
                self.span,
                format!("table `{}` has no `actions` property", self.name),
            );
            return;
        };
        for p in self.properties {
            match &p.kind {
                TablePropertyKind::DefaultAction(e) => {
                    self.action_use(e, actions, "default action", "tableonly", r)
                }
                TablePropertyKind::Entries(entries) => entries.iter().for_each(|en| {
                    self.action_use(&en.action, actions, "entry action", "defaultonly", r)
                }),
                _ => {}
            }
        }
    }

    /// Inside its own declaration the table's name denotes the table.
    fn no_self_reference(&self, e: &Expr, r: &mut Reporter) {
        for_each_expr(e, &mut |e| {
            if let ExprKind::Path(p) = &e.kind {
                if !p.top_level && p.name.name == self.name {
                    r.error(
                        e.span,
                        format!("table `{}` cannot refer to itself in its key", self.name),
                    );
                }
            }
        });
    }

    fn has_key(&self) -> bool {
        self.properties
            .iter()
            .any(|p| matches!(p.kind, TablePropertyKind::Key(_)))
    }

    fn action_list(&self, list: &[ActionRef], r: &mut Reporter) {
        let mut seen: HashMap<(&str, bool), Span> = HashMap::new();
        for a in list {
            let key = (a.name.name.name.as_str(), a.name.top_level);
            match seen.get(&key) {
                Some(&first) => r.error_with_note(
                    a.name.span,
                    format!(
                        "action `{}` is listed twice in table `{}`",
                        a.name.name.name, self.name
                    ),
                    first,
                    "first listed here",
                ),
                None => {
                    seen.insert(key, a.name.span);
                }
            }
            self.bound_arguments(a, r);
        }
    }

    /// The `actions` list binds exactly the parameters that have a
    /// direction; the control plane supplies the others.
    fn bound_arguments(&self, a: &ActionRef, r: &mut Reporter) {
        let Some(params) = self.actions.params(&a.name) else {
            return;
        };
        let bound = a.args.as_ref().map_or(0, Vec::len);
        let directional = params.iter().filter(|p| p.direction.is_some()).count();
        if bound != directional {
            r.error(
                a.span,
                format!(
                    "action `{}` has {} with a direction but {} bound",
                    a.name.name.name,
                    counted(directional, "parameter"),
                    counted(bound, "argument"),
                ),
            );
        }
    }

    /// Two spellings denote the same action unless one is `.a` and a local
    /// action `a` exists.
    fn same_action(&self, a: &Path, b: &Path) -> bool {
        a.name.name == b.name.name
            && (a.top_level == b.top_level
                || !self.actions.local.contains_key(a.name.name.as_str()))
    }

    /// A default action or entry action: an action name or call, listed in
    /// `actions` and not annotated as unusable here.
    fn action_use(
        &self,
        e: &Expr,
        list: &[ActionRef],
        what: &str,
        forbidden: &str,
        r: &mut Reporter,
    ) {
        let (path, args) = match &e.kind {
            ExprKind::Path(p) => (p, &[][..]),
            ExprKind::Call { callee, args, .. } => match &callee.kind {
                ExprKind::Path(p) => (p, args.as_slice()),
                _ => {
                    return r.error(
                        e.span,
                        format!("the {what} of table `{}` must be an action", self.name),
                    )
                }
            },
            _ => {
                return r.error(
                    e.span,
                    format!("the {what} of table `{}` must be an action", self.name),
                )
            }
        };
        match list.iter().find(|a| self.same_action(&a.name, path)) {
            None => r.error(
                path.span,
                format!(
                    "{what} `{}` is not in the actions of table `{}`",
                    path.name.name, self.name
                ),
            ),
            Some(a) if a.annotations.iter().any(|an| an.name.name == forbidden) => r.error(
                path.span,
                format!(
                    "action `{}` is marked `@{forbidden}`, so it cannot be the {what} of table `{}`",
                    path.name.name, self.name
                ),
            ),
            Some(listed) => self.arguments(path, args, listed, what, r),
        }
    }

    /// A default action or entry gives every argument of the action, and
    /// repeats those the `actions` list binds.
    fn arguments(
        &self,
        path: &Path,
        args: &[Argument],
        listed: &ActionRef,
        what: &str,
        r: &mut Reporter,
    ) {
        let name = &path.name.name;
        let defaults_all = args
            .iter()
            .any(|a| matches!(a.value.kind, ExprKind::DefaultValue));
        if let Some(params) = self.actions.params(path).filter(|_| !defaults_all) {
            let required = params.iter().filter(|p| p.default.is_none()).count();
            if !(required..=params.len()).contains(&args.len()) {
                return r.error(
                    path.span,
                    format!(
                        "{what} `{name}` takes {} but is given {}",
                        counted(params.len(), "argument"),
                        args.len()
                    ),
                );
            }
        }
        let bound = listed.args.iter().flatten();
        for (given, bound) in args.iter().zip(bound) {
            let (Some(given_spelling), Some(bound_spelling)) =
                (spelling(&given.value, r), spelling(&bound.value, r))
            else {
                continue;
            };
            if given_spelling != bound_spelling {
                r.error(
                    given.span,
                    format!("argument of `{name}` differs from the one bound in the actions list"),
                );
            }
        }
    }
}

/// Standard properties with a fixed kind of value: `size` and
/// `priority_delta` take a number, `largest_priority_wins` a boolean.
fn standard_property(name: &Ident, value: &Expr, r: &mut Reporter) {
    let not_a_number = matches!(
        value.kind,
        ExprKind::Bool(_)
            | ExprKind::String(_)
            | ExprKind::List(_)
            | ExprKind::StructInit { .. }
            | ExprKind::Invalid
            | ExprKind::DontCare
            | ExprKind::DefaultValue
    );
    let wrong = match name.name.as_str() {
        "size" | "priority_delta" => not_a_number,
        "largest_priority_wins" => !matches!(value.kind, ExprKind::Bool(_)),
        _ => false,
    };
    if wrong {
        let expected = if name.name == "largest_priority_wins" {
            "`true` or `false`"
        } else {
            "a number"
        };
        r.error(
            value.span,
            format!("table property `{}` must be {expected}", name.name),
        );
    }
}

/// The spelling of an expression whose spelling identifies it: names,
/// fields, literals, elements, slices, operations and calls of those, and
/// structure initializers of those (with fields in name order, as their
/// order does not matter).
fn spelling(e: &Expr, r: &Reporter) -> Option<String> {
    match &e.kind {
        ExprKind::Path(_) | ExprKind::Int(_) | ExprKind::Bool(_) => Some(squeezed(r.text(e.span))),
        ExprKind::Member { base, .. } => spelling(base, r).map(|_| squeezed(r.text(e.span))),
        ExprKind::Index { base: a, index: b }
        | ExprKind::Slice { base: a, hi: b, .. }
        | ExprKind::Binary { lhs: a, rhs: b, .. } => {
            spelling(a, r)?;
            spelling(b, r)?;
            if let ExprKind::Slice { lo, .. } = &e.kind {
                spelling(lo, r)?;
            }
            Some(squeezed(r.text(e.span)))
        }
        ExprKind::Unary { operand, .. } => spelling(operand, r).map(|_| squeezed(r.text(e.span))),
        ExprKind::Call { callee, args, .. } => {
            spelling(callee, r)?;
            for a in args {
                spelling(&a.value, r)?;
            }
            Some(squeezed(r.text(e.span)))
        }
        ExprKind::StructInit {
            ty: None,
            fields,
            rest: false,
        } => {
            let mut parts = Vec::new();
            for (name, value) in fields {
                parts.push(format!("{}={}", name.name, spelling(value, r)?));
            }
            parts.sort();
            Some(format!("{{{}}}", parts.join(",")))
        }
        _ => None,
    }
}

/// Program text without white space, to compare expressions as written.
fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}
