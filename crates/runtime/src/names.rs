//! Finds tables, actions, key fields, parameters and counters by the names
//! people and test files use for them: the dotted P4 name
//! (`pipe.Check_src_ip`), the P4 reference compiler's underscore-joined form
//! (`pipe_Check_src_ip`, `_NoAction` for the top-level `NoAction`), a
//! unique last part (`Check_src_ip`), and for key fields `key.fieldN` (by
//! position) or `key.<expression with _>`.

use crate::error::{Result, RuntimeError};
use p4bpf_layout::{Counter, Pipeline, Table};

/// Dots become `_`; leading `_` (the reference compiler's mark of a
/// top-level name) and leading dots are dropped.
fn normalize(name: &str) -> String {
    name.replace('.', "_").trim_start_matches('_').to_string()
}

/// Position of `wanted` among `names`: exact, then normalized, then a unique
/// normalized suffix after `_`.
fn find<'a>(wanted: &str, names: impl Iterator<Item = &'a str> + Clone) -> Option<usize> {
    if let Some(index) = names.clone().position(|name| name == wanted) {
        return Some(index);
    }
    let wanted = normalize(wanted);
    if let Some(index) = names.clone().position(|name| normalize(name) == wanted) {
        return Some(index);
    }
    let suffix = format!("_{wanted}");
    let mut matches = names.enumerate().filter(|(_, name)| normalize(name).ends_with(&suffix));
    match (matches.next(), matches.next()) {
        (Some((index, _)), None) => Some(index),
        _ => None,
    }
}

fn unknown(kind: &str, wanted: &str, known: Vec<&str>) -> RuntimeError {
    let list = if known.is_empty() { "none".to_string() } else { known.join(", ") };
    RuntimeError::Value(format!("unknown {kind} `{wanted}` (known: {list})"))
}

pub fn table<'a>(pipeline: &'a Pipeline, wanted: &str) -> Result<&'a Table> {
    let names = pipeline.tables.iter().map(|t| t.name.as_str());
    find(wanted, names.clone())
        .and_then(|index| pipeline.tables.get(index))
        .ok_or_else(|| unknown("table", wanted, names.collect()))
}

pub fn counter<'a>(pipeline: &'a Pipeline, wanted: &str) -> Result<&'a Counter> {
    let names = pipeline.counters.iter().map(|c| c.name.as_str());
    find(wanted, names.clone())
        .and_then(|index| pipeline.counters.get(index))
        .ok_or_else(|| unknown("counter", wanted, names.collect()))
}

pub fn action(table: &Table, wanted: &str) -> Result<usize> {
    let names = table.actions.iter().map(|a| a.name.as_str());
    find(wanted, names.clone())
        .ok_or_else(|| unknown(&format!("action of table `{}`:", table.name), wanted, names.collect()))
}

pub fn key_field(table: &Table, wanted: &str) -> Result<usize> {
    let names = table.keys.iter().map(|k| k.field.name.as_str());
    let positional = wanted
        .strip_prefix("key.field")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n < table.keys.len());
    positional
        .or_else(|| find(wanted, names.clone()))
        .or_else(|| wanted.strip_prefix("key.").and_then(|rest| find(rest, names.clone())))
        .ok_or_else(|| unknown(&format!("key field of table `{}`:", table.name), wanted, names.collect()))
}

pub fn param(table: &Table, action_index: usize, wanted: &str) -> Result<usize> {
    let params = table.actions.get(action_index).map(|a| a.params.as_slice()).unwrap_or_default();
    let names = params.iter().map(|p| p.name.as_str());
    find(wanted, names.clone())
        .ok_or_else(|| unknown(&format!("parameter of a `{}` action:", table.name), wanted, names.collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_underscore_and_suffix_forms() {
        let names = ["pipe.Check_src_ip", "NoAction", "pipe.Reject", "pipe.c1.Reject"];
        let at = |w: &str| find(w, names.iter().copied());
        assert_eq!(at("pipe.Check_src_ip"), Some(0));
        assert_eq!(at("pipe_Check_src_ip"), Some(0));
        assert_eq!(at("_NoAction"), Some(1));
        assert_eq!(at("pipe_Reject"), Some(2));
        assert_eq!(at("pipe_c1_Reject"), Some(3));
        assert_eq!(at("Check_src_ip"), Some(0));
        // Two tables end in `Reject`: ambiguous, so not found.
        assert_eq!(at("Reject"), None);
        assert_eq!(at("missing"), None);
    }
}
