//! The entries of non-const `entries` lists as the control plane writes
//! them (key texts, action index, argument texts, priority), for the
//! runtime to install when the pipeline loads.

use crate::ir::{ExprKind, InitialEntry, Keyset, MatchKind, Program, Table};
use num_bigint::BigUint;
use p4bpf_layout as layout;

pub fn initial_entries(prog: &Program) -> Vec<layout::InitialEntry> {
    prog.tables
        .iter()
        .flat_map(|t| t.initial_entries.iter().map(move |e| (t, e)))
        .filter_map(|(t, e)| describe(prog, t, e))
        .collect()
}

fn describe(prog: &Program, t: &Table, e: &InitialEntry) -> Option<layout::InitialEntry> {
    let called = e.entry.action.action;
    let name = &prog.action(called)?.name;
    let action = t.actions.iter().position(|a| *a == called).or_else(|| {
        t.actions
            .iter()
            .position(|a| prog.action(*a).is_some_and(|x| &x.name == name))
    })?;
    let keys = t
        .keys
        .iter()
        .zip(&e.entry.keysets)
        .enumerate()
        .filter_map(|(i, (key, keyset))| Some((i, key_text(key.kind, keyset)?)))
        .collect();
    let args = e.entry.action.args.iter().filter_map(|a| match &a.kind {
        ExprKind::Int(v) => Some(hex(v)),
        ExprKind::Bool(b) => Some(u8::from(*b).to_string()),
        _ => None,
    });
    Some(layout::InitialEntry {
        table: t.name.clone(),
        keys,
        action,
        args: args.collect(),
        priority: e.priority,
    })
}

/// A key field's text in `p4bpf table add` terms; `None` (the field left
/// out) matches every value.
fn key_text(kind: MatchKind, keyset: &Keyset) -> Option<String> {
    match (kind, keyset) {
        (_, Keyset::Default | Keyset::ValueSet(_)) => None,
        (_, Keyset::Value(v)) => Some(hex(v)),
        (MatchKind::Lpm, Keyset::Mask { value, mask }) => {
            Some(format!("{}/{}", hex(value), mask.count_ones()))
        }
        (_, Keyset::Mask { value, mask }) => Some(format!("{}&&&{}", hex(value), hex(mask))),
        (_, Keyset::Range { lo, hi }) => Some(format!("{}..{}", hex(lo), hex(hi))),
    }
}

fn hex(v: &BigUint) -> String {
    format!("{v:#x}")
}
