//! Finds tables, actions, key fields, parameters and counters by the names
//! people and test files use for them: the dotted P4 name
//! (`pipe.Check_src_ip`), the P4 reference compiler's underscore-joined form
//! (`pipe_Check_src_ip`, `_NoAction` for the top-level `NoAction`), a
//! unique last part (`Check_src_ip`), and for key fields `key.fieldN` (by
//! position) or `key.<expression with _>`.

use crate::error::{Result, RuntimeError};
use p4bpf_layout::{Counter, DirectExtern, Meter, Pipeline, Table};

/// Dots become `_` and a stack element `[N]` becomes `$N` (BMv2's STF
/// writes `extra$0.h` for `extra[0].h`); leading `_` (the reference
/// compiler's mark of a top-level name) and leading dots are dropped.
fn normalize(name: &str) -> String {
    name.replace('.', "_")
        .replace('[', "$")
        .replace(']', "")
        .trim_start_matches('_')
        .to_string()
}

/// Why a name was not found.
enum Miss {
    Unknown,
    /// The names it is a suffix of.
    Ambiguous(Vec<String>),
}

/// Position of `wanted` among `names`: exact, then normalized, then a unique
/// normalized suffix after `_`.
fn find<'a>(
    wanted: &str,
    names: impl Iterator<Item = &'a str> + Clone,
) -> std::result::Result<usize, Miss> {
    if let Some(index) = names.clone().position(|name| name == wanted) {
        return Ok(index);
    }
    let normal = normalize(wanted);
    if let Some(index) = names.clone().position(|name| normalize(name) == normal) {
        return Ok(index);
    }
    let suffix = format!("_{normal}");
    let matches: Vec<(usize, &str)> = names
        .enumerate()
        .filter(|(_, name)| normalize(name).ends_with(&suffix))
        .collect();
    match matches.as_slice() {
        [(index, _)] => Ok(*index),
        [] => Err(Miss::Unknown),
        many => Err(Miss::Ambiguous(
            many.iter().map(|(_, name)| name.to_string()).collect(),
        )),
    }
}

/// The error for a name `find` missed, listing what would have matched.
fn missed(kind: &str, wanted: &str, miss: Miss, known: Vec<&str>) -> RuntimeError {
    match miss {
        Miss::Ambiguous(candidates) => RuntimeError::Value(format!(
            "{kind} `{wanted}` is ambiguous: it could be {}",
            candidates.join(" or ")
        )),
        Miss::Unknown => {
            let list = if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            };
            RuntimeError::Value(format!("unknown {kind} `{wanted}` (known: {list})"))
        }
    }
}

pub fn table<'a>(pipeline: &'a Pipeline, wanted: &str) -> Result<&'a Table> {
    let names = pipeline.tables.iter().map(|t| t.name.as_str());
    let index = find(wanted, names.clone())
        .map_err(|miss| missed("table", wanted, miss, names.collect()))?;
    pipeline
        .tables
        .get(index)
        .ok_or_else(|| missed("table", wanted, Miss::Unknown, vec![]))
}

pub fn counter<'a>(pipeline: &'a Pipeline, wanted: &str) -> Result<&'a Counter> {
    let names = pipeline.counters.iter().map(|c| c.name.as_str());
    let index = find(wanted, names.clone())
        .map_err(|miss| missed("counter", wanted, miss, names.collect()))?;
    pipeline
        .counters
        .get(index)
        .ok_or_else(|| missed("counter", wanted, Miss::Unknown, vec![]))
}

/// The direct counter or meter `wanted` of `table` (a resolved name).
pub fn direct<'a>(pipeline: &'a Pipeline, wanted: &str, table: &str) -> Result<&'a DirectExtern> {
    let of_table: Vec<&DirectExtern> = pipeline
        .direct
        .iter()
        .filter(|d| d.table == table)
        .collect();
    let names = of_table.iter().map(|d| d.name.as_str());
    let index = find(wanted, names.clone()).map_err(|miss| {
        let kind = format!("direct counter or meter of table `{table}`");
        missed(&kind, wanted, miss, names.collect())
    })?;
    of_table
        .get(index)
        .copied()
        .ok_or_else(|| missed("direct extern", wanted, Miss::Unknown, vec![]))
}

pub fn meter<'a>(pipeline: &'a Pipeline, wanted: &str) -> Result<&'a Meter> {
    let names = pipeline.meters.iter().map(|m| m.name.as_str());
    let index = find(wanted, names.clone())
        .map_err(|miss| missed("meter", wanted, miss, names.collect()))?;
    pipeline
        .meters
        .get(index)
        .ok_or_else(|| missed("meter", wanted, Miss::Unknown, vec![]))
}

pub fn action(table: &Table, wanted: &str) -> Result<usize> {
    let names = table.actions.iter().map(|a| a.name.as_str());
    find(wanted, names.clone()).map_err(|miss| {
        missed(
            &format!("action of table `{}`:", table.name),
            wanted,
            miss,
            names.collect(),
        )
    })
}

pub fn key_field(table: &Table, wanted: &str) -> Result<usize> {
    let names = table.keys.iter().map(|k| k.field.name.as_str());
    let positional = wanted
        .strip_prefix("key.field")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n < table.keys.len());
    if let Some(index) = positional {
        return Ok(index);
    }
    let kind = format!("key field of table `{}`:", table.name);
    match (find(wanted, names.clone()), wanted.strip_prefix("key.")) {
        (Ok(index), _) => Ok(index),
        (Err(Miss::Unknown), Some(rest)) => {
            find(rest, names.clone()).map_err(|miss| missed(&kind, wanted, miss, names.collect()))
        }
        (Err(miss), _) => Err(missed(&kind, wanted, miss, names.collect())),
    }
}

pub fn param(table: &Table, action_index: usize, wanted: &str) -> Result<usize> {
    let params = table
        .actions
        .get(action_index)
        .map(|a| a.params.as_slice())
        .unwrap_or_default();
    let names = params.iter().map(|p| p.name.as_str());
    find(wanted, names.clone()).map_err(|miss| {
        missed(
            &format!("parameter of a `{}` action:", table.name),
            wanted,
            miss,
            names.collect(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_underscore_and_suffix_forms() {
        let names = [
            "pipe.Check_src_ip",
            "NoAction",
            "pipe.Reject",
            "pipe.c1.Reject",
        ];
        let at = |w: &str| find(w, names.iter().copied()).ok();
        assert_eq!(at("pipe.Check_src_ip"), Some(0));
        assert_eq!(at("pipe_Check_src_ip"), Some(0));
        assert_eq!(at("_NoAction"), Some(1));
        assert_eq!(at("pipe_Reject"), Some(2));
        assert_eq!(at("pipe_c1_Reject"), Some(3));
        assert_eq!(at("Check_src_ip"), Some(0));
        // Two actions end in `Reject`: ambiguous, and the error says so.
        assert_eq!(at("Reject"), None);
        assert_eq!(at("missing"), None);
        let error = find("Reject", names.iter().copied())
            .map_err(|m| missed("action", "Reject", m, vec![]));
        assert!(error.is_err_and(|e| e
            .to_string()
            .contains("could be pipe.Reject or pipe.c1.Reject")));
    }
}
