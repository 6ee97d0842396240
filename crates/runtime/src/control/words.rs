//! Command-line words to an entry of a table: `KEY=VALUE` words up to the
//! first bare word, which names the action, then `PARAM=VALUE` words. Names
//! resolve as `names` does (dotted P4 names, underscore forms, unique
//! suffixes), so `hdr.ipv4.dstAddr=10.0.0.0/24`, `dstAddr=...` and
//! `key.field0=...` are the same key. Unlike STF files (where a bare value
//! means the whole field), an operator must write the prefix of an lpm
//! field and the mask of a ternary one: a forgotten `/24` would otherwise
//! silently install a host route.

use crate::entry::EntrySpec;
use crate::error::{Result, RuntimeError};
use crate::names;
use p4bpf_layout::{MatchKind, Table};

/// The words of one entry, split but not yet resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntryWords {
    pub keys: Vec<(String, String)>,
    pub action: Option<String>,
    pub params: Vec<(String, String)>,
}

impl EntryWords {
    pub fn split(words: &[String]) -> Result<EntryWords> {
        let mut entry = EntryWords::default();
        for word in words {
            match (word.split_once('='), &entry.action) {
                (Some((name, value)), None) => entry.keys.push((name.into(), value.into())),
                (Some((name, value)), Some(_)) => entry.params.push((name.into(), value.into())),
                (None, None) => entry.action = Some(word.clone()),
                // `member 5`, `group 2`: a profile table's reference by id.
                (None, Some(action)) if is_reference(action) && entry.params.is_empty() => {
                    entry.params.push(("id".into(), word.clone()))
                }
                (None, Some(action)) => {
                    return Err(RuntimeError::Value(format!(
                        "unexpected `{word}` after action `{action}`: parameters are NAME=VALUE"
                    )))
                }
            }
        }
        Ok(entry)
    }
}

fn is_reference(action: &str) -> bool {
    action == p4bpf_layout::MEMBER_ACTION || action == p4bpf_layout::GROUP_ACTION
}

/// A full entry: keys, action and its parameters.
pub fn parse_entry(table: &Table, words: &[String], priority: Option<u32>) -> Result<EntrySpec> {
    let split = EntryWords::split(words)?;
    let Some(action_name) = &split.action else {
        return Err(RuntimeError::Value(format!(
            "table `{}`: the entry names no action",
            table.name
        )));
    };
    let action = names::action(table, action_name)?;
    let mut args = Vec::new();
    for (name, value) in &split.params {
        args.push((names::param(table, action, name)?, value.clone()));
    }
    Ok(EntrySpec {
        keys: resolve_keys(table, &split.keys)?,
        action,
        args,
        priority,
    })
}

/// An entry given by its key alone (for delete and get). The action is a
/// placeholder with zero parameters: only the encoded key is used.
pub fn parse_key(table: &Table, words: &[String], priority: Option<u32>) -> Result<EntrySpec> {
    let split = EntryWords::split(words)?;
    if let Some(action) = &split.action {
        return Err(RuntimeError::Value(format!(
            "unexpected `{action}`: give only the key (NAME=VALUE words)"
        )));
    }
    key_only(table, resolve_keys(table, &split.keys)?, priority)
}

/// An entry of `keys` (resolved) whose action is a placeholder with zero
/// parameters, for operations that use only the encoded key.
pub fn key_only(
    table: &Table,
    keys: Vec<(usize, String)>,
    priority: Option<u32>,
) -> Result<EntrySpec> {
    let (action, placeholder) = table
        .actions
        .iter()
        .enumerate()
        .find(|(_, a)| !a.default_only)
        .ok_or_else(|| RuntimeError::Value(format!("table `{}` takes no entries", table.name)))?;
    Ok(EntrySpec {
        keys,
        action,
        args: (0..placeholder.params.len())
            .map(|i| (i, "0".into()))
            .collect(),
        priority,
    })
}

fn resolve_keys(table: &Table, keys: &[(String, String)]) -> Result<Vec<(usize, String)>> {
    let mut resolved: Vec<(usize, String)> = Vec::new();
    for (name, value) in keys {
        let index = names::key_field(table, name)?;
        let kind = table.keys.get(index).map(|k| k.match_kind);
        let (needs, form) = match kind {
            Some(MatchKind::Lpm) => ("/", "a prefix length (VALUE/PREFIX)"),
            Some(MatchKind::Ternary) => ("&&&", "a mask (VALUE&&&MASK)"),
            _ => ("", ""),
        };
        if !value.contains(needs) {
            return Err(RuntimeError::Value(format!(
                "table `{}`, key field `{name}`: `{value}` needs {form}",
                table.name
            )));
        }
        if resolved.iter().any(|(i, _)| *i == index) {
            return Err(RuntimeError::Value(format!(
                "table `{}`: key field `{name}` is given twice",
                table.name
            )));
        }
        resolved.push((index, value.clone()));
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn keys_action_then_params() {
        let split = EntryWords::split(&words(&["a=1", "b=2/8", "fwd", "port=3"]));
        assert_eq!(
            split.ok(),
            Some(EntryWords {
                keys: vec![("a".into(), "1".into()), ("b".into(), "2/8".into())],
                action: Some("fwd".into()),
                params: vec![("port".into(), "3".into())],
            })
        );
        let stray = EntryWords::split(&words(&["a=1", "fwd", "oops"]));
        assert!(stray.is_err_and(|e| e.to_string().contains("unexpected `oops`")));
    }
}
