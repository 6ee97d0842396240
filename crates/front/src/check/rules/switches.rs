//! Labels of `switch` statements: at most one `default`, and it comes last;
//! no label twice; and on a table's `action_run` every label is the plain
//! name of an action listed in that table's `actions` (when the table is
//! declared in the same control).

use super::walk::applied_name;
use super::Reporter;
use crate::ast::{ActionRef, Expr, ExprKind, SwitchCase, SwitchLabel};
use crate::source::Span;
use std::collections::HashMap;

/// For `t.apply().action_run`, the `t.apply()` call.
pub(super) fn action_run_base(subject: &Expr) -> Option<&Expr> {
    match &subject.kind {
        ExprKind::Member { base, member }
            if member.name == "action_run" && applied_name(base).is_some() =>
        {
            Some(base)
        }
        _ => None,
    }
}

pub(super) fn check(
    subject: &Expr,
    cases: &[SwitchCase],
    tables: &HashMap<&str, &[ActionRef]>,
    r: &mut Reporter,
) {
    let mut default: Option<Span> = None;
    let mut seen: HashMap<String, Span> = HashMap::new();
    for case in cases {
        if default.is_some() {
            r.error(case.span, "`default` must be the last switch label");
        }
        match &case.label {
            SwitchLabel::Default(span) => match default {
                Some(first) => r.error_with_note(
                    *span,
                    "duplicate `default` label",
                    first,
                    "first `default` is here",
                ),
                None => default = Some(*span),
            },
            SwitchLabel::Expr(label) => {
                let key: String = r
                    .text(label.span)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                match seen.get(&key) {
                    Some(&first) => r.error_with_note(
                        label.span,
                        format!("duplicate switch label `{key}`"),
                        first,
                        "first use is here",
                    ),
                    None => {
                        seen.insert(key, label.span);
                    }
                }
            }
        }
    }
    if let Some(call) = action_run_base(subject) {
        let table = applied_name(call).unwrap_or_default();
        action_labels(cases, table, tables.get(table).copied(), r);
    }
}

/// Labels of a switch on `table.apply().action_run`.
fn action_labels(
    cases: &[SwitchCase],
    table: &str,
    actions: Option<&[ActionRef]>,
    r: &mut Reporter,
) {
    for case in cases {
        let SwitchLabel::Expr(label) = &case.label else {
            continue;
        };
        match &label.kind {
            ExprKind::Path(path) if !path.top_level => {
                let listed =
                    |list: &[ActionRef]| list.iter().any(|a| a.name.name.name == path.name.name);
                if actions.is_some_and(|list| !listed(list)) {
                    r.error(
                        label.span,
                        format!("`{}` is not an action of table `{table}`", path.name.name),
                    );
                }
            }
            _ => r.error(
                label.span,
                "a switch label on `action_run` must be an action name",
            ),
        }
    }
}
