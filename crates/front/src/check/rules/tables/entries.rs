//! The `entries` of a table: after the key, one value per key field,
//! priorities only in a non-`const` list, when some key field is not
//! `exact` or `lpm`, and then from the first entry on, no `const` entry in a `const` list, and no exact key
//! given twice.

use super::{squeezed, Table};
use crate::ast::{Entry, Expr, ExprKind, KeyElement, TableProperty};
use crate::check::rules::Reporter;
use crate::diag::counted;
use crate::source::Span;
use std::collections::HashMap;

impl Table<'_> {
    pub(super) fn entries(
        &self,
        prop: &TableProperty,
        entries: &[Entry],
        keys: &[KeyElement],
        r: &mut Reporter,
    ) {
        let kinds: Vec<&str> = keys
            .iter()
            .map(|k| k.match_kind.name.name.as_str())
            .collect();
        for entry in entries {
            if entry.is_const && prop.is_const {
                r.error(
                    entry.span,
                    "entries of a `const entries` list cannot be marked `const` again",
                );
            }
            entry_keyset(&entry.keyset, &kinds, r);
        }
        self.priorities(prop.is_const, entries, &kinds, r);
        if !kinds.is_empty() && kinds.iter().all(|k| *k == "exact") {
            let mut seen: HashMap<String, Span> = HashMap::new();
            for entry in entries {
                let text = squeezed(r.text(entry.keyset.span));
                match seen.get(&text) {
                    Some(&first) => r.error_with_note(
                        entry.keyset.span,
                        "duplicate entry key",
                        first,
                        "first entry is here",
                    ),
                    None => {
                        seen.insert(text, entry.keyset.span);
                    }
                }
            }
        }
    }

    fn priorities(&self, constant: bool, entries: &[Entry], kinds: &[&str], r: &mut Reporter) {
        let Some(with) = entries.iter().find(|e| e.priority.is_some()) else {
            return;
        };
        if constant {
            return r.error(
                with.span,
                "entries of a `const entries` list cannot have priorities",
            );
        }
        if kinds.iter().all(|k| *k == "exact" || *k == "lpm") {
            r.error(
                with.span,
                format!("entries of table `{}` cannot have priorities: it has no ternary, range or optional key", self.name),
            );
        } else if let Some(first) = entries.first().filter(|e| e.priority.is_none()) {
            r.error(
                first.span,
                "the first entry must have a priority when later entries have one",
            );
        }
    }
}

/// The keyset of one entry against the number of key fields.
fn entry_keyset(keyset: &Expr, kinds: &[&str], r: &mut Reporter) {
    let elements: Vec<&Expr> = match &keyset.kind {
        ExprKind::List(items) => items.iter().collect(),
        ExprKind::Default | ExprKind::DontCare if kinds.len() > 1 => return,
        _ => vec![keyset],
    };
    if elements.len() != kinds.len() {
        r.error(
            keyset.span,
            format!(
                "entry has {} but the table key has {}",
                counted(elements.len(), "key value"),
                counted(kinds.len(), "field")
            ),
        );
    }
}
