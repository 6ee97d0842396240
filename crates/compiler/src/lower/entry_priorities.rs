//! The order const entries are tried in. Without priorities it is the
//! written order (spec 14.2.1.4: `const entries` cannot take the spec's
//! `priority = N :`, the front end rejects it). p4c's `@priority(N)`
//! annotation reorders them as BMv2 reads it: the smallest wins, and an
//! entry without one ranks by its position, 1 for the first.

use super::Lowerer;
use num_traits::ToPrimitive;
use p4bpf_front::ast::{self, ExprKind as A};

impl<'a, 'u> Lowerer<'a, 'u> {
    /// Each entry's rank, the smallest winning; `None` when no entry has
    /// `@priority` (written order decides).
    pub(super) fn entry_ranks(&mut self, entries: &'a [ast::Entry]) -> Option<Vec<u64>> {
        if !entries.iter().any(|e| priority_annotation(e).is_some()) {
            return None;
        }
        let mut ranks = vec![];
        for (position, entry) in entries.iter().enumerate() {
            let annotation = priority_annotation(entry);
            let written = annotation.and_then(|e| match &e.kind {
                A::Int(lit) => lit.value.to_u32(),
                _ => None,
            });
            if let (Some(e), None) = (annotation, written) {
                self.diags.error(
                    e.span,
                    "`@priority` takes an integer literal that fits 32 bits",
                );
            }
            ranks.push(written.map_or(position as u64 + 1, u64::from));
        }
        Some(ranks)
    }
}

/// The expression of an entry's `@priority(N)`.
fn priority_annotation(entry: &ast::Entry) -> Option<&ast::Expr> {
    let annotation = entry
        .annotations
        .iter()
        .find(|a| a.name.name == "priority")?;
    match &annotation.body {
        ast::AnnotationBody::Expressions(list) => list.first(),
        _ => None,
    }
}
