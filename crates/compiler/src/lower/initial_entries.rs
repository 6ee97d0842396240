//! Non-const `entries` (P4_16 14.2.1.4): the entries a table starts with,
//! installed in its map when the pipeline loads; the control plane may
//! then modify or delete them like any other. An entry's priority is the
//! one it is written with (`priority = N :`), else the previous entry's
//! moved by the table's `priority_delta` (1 unless it says) towards losing;
//! a first entry without one gets `priority_delta`, or, where the largest
//! wins, the entries' count times it, so the ones after it stay positive.
//! The control plane's priorities let the larger win: under
//! `largest_priority_wins = false` an entry's priority `p` is installed as
//! `M + 1 - p`, `M` the largest written or computed.

use super::Lowerer;
use crate::ir::{InitialEntry, MatchKind, TableKey};
use num_traits::ToPrimitive;
use p4bpf_front::ast::{self, TablePropertyKind};
use p4bpf_front::check::Value;

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn initial_entries(
        &mut self,
        list: &'a [ast::Entry],
        keys: &[TableKey],
        properties: &'a [ast::TableProperty],
    ) -> Vec<InitialEntry> {
        let ranked = keys.iter().any(|k| {
            matches!(
                k.kind,
                MatchKind::Ternary | MatchKind::Range | MatchKind::Optional
            )
        });
        let largest_wins = self.bool_property(properties, "largest_priority_wins");
        let delta = self.u32_property(properties, "priority_delta").unwrap_or(1);
        let mut priorities = Vec::with_capacity(list.len());
        let mut previous: Option<u64> = None;
        for entry in list {
            let written = entry
                .priority
                .as_ref()
                .and_then(|p| self.env.const_u32(p, &mut self.diags));
            let priority = match (written, previous) {
                (Some(p), _) => u64::from(p),
                (None, Some(p)) if largest_wins != Some(false) => p.saturating_sub(delta.into()),
                (None, Some(p)) => p + u64::from(delta),
                (None, None) if largest_wins != Some(false) => list.len() as u64 * u64::from(delta),
                (None, None) => delta.into(),
            };
            priorities.push(priority);
            previous = Some(priority);
        }
        let largest = priorities.iter().copied().max().unwrap_or(0);
        let mut entries = vec![];
        for (entry, p4_priority) in list.iter().zip(priorities) {
            let Some(lowered) = self.const_entry(entry, keys) else {
                continue;
            };
            let installed = match largest_wins {
                Some(false) => largest + 1 - p4_priority,
                _ => p4_priority,
            };
            let priority = ranked.then(|| u32::try_from(installed).unwrap_or(u32::MAX));
            entries.push(InitialEntry {
                entry: lowered,
                priority,
            });
        }
        entries
    }

    fn property_value(
        &self,
        properties: &'a [ast::TableProperty],
        name: &str,
    ) -> Option<&'a ast::Expr> {
        properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Other {
                name: prop_name,
                value,
            } if prop_name.name == name => Some(value),
            _ => None,
        })
    }

    fn bool_property(&mut self, properties: &'a [ast::TableProperty], name: &str) -> Option<bool> {
        let value = self.property_value(properties, name)?;
        match self.env.value(value) {
            Some(Value::Bool(b)) => Some(*b),
            _ => {
                self.diags
                    .error(value.span, format!("`{name}` takes `true` or `false`"));
                None
            }
        }
    }

    fn u32_property(&mut self, properties: &'a [ast::TableProperty], name: &str) -> Option<u32> {
        let value = self.property_value(properties, name)?;
        let n = self
            .env
            .value(value)
            .and_then(|v| v.int())
            .and_then(|n| n.to_u32());
        if n.is_none() {
            self.diags.error(
                value.span,
                format!("`{name}` takes an integer that fits 32 bits"),
            );
        }
        n
    }
}
