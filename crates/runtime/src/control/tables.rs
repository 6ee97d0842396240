//! Entry operations: add (`table::add_entry`, with a full table said in
//! table terms), modify, delete and get by key, dump and clear. A ternary
//! entry is a rule in a bucket (`crate::ternary`): modify, delete and get
//! rewrite or read that bucket; a group is kept after its last rule goes
//! (probing an empty group finds nothing), except by `clear`, which empties
//! the group slots too.

use super::decode::{self, Entry};
use super::{delete_key, in_table_terms, keys};
use crate::entry::{encode_entry, EncodedEntry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::ternary;
use p4bpf_layout::{Table, TableStorage};

/// The map key of `spec` and the entry value it would store (not for
/// ternary tables: see [`find_rule`]).
fn locate(table: &Table, spec: &EntrySpec) -> Result<(Vec<u8>, Vec<u8>)> {
    let encoded = encode_entry(table, spec)?;
    Ok((encoded.key, encoded.value))
}

fn no_entry(table: &Table) -> RuntimeError {
    RuntimeError::Value(format!("table `{}` has no entry with this key", table.name))
}

/// The bucket key, bucket and rule index of the ternary entry `encoded`.
fn find_rule(
    source: &impl MapSource,
    table: &Table,
    encoded: &EncodedEntry,
) -> Result<(Vec<u8>, Vec<u8>, usize)> {
    let layout = table.ternary.as_ref().ok_or_else(|| no_entry(table))?;
    let map = source.map(&table.map)?;
    let groups = crate::table::used_groups(table, layout, &source.map(&layout.groups_map)?)?;
    ternary::find(table, &groups, encoded, |key| read_optional(&map, key))?
        .ok_or_else(|| no_entry(table))
}

fn read_optional(map: &Map, key: &[u8]) -> Result<Option<Vec<u8>>> {
    match map.read(key) {
        Ok(values) => Ok(values.into_iter().next()),
        Err(RuntimeError::KeyNotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A rule in P4 terms (`decode` reads a ternary key after the slot word).
fn rule_entry(table: &Table, value: &[u8], mask: &[u8], action: &[u8]) -> Result<Entry> {
    let offset = table
        .ternary
        .as_ref()
        .map_or(0, |t| t.bucket_key_offset as usize);
    let mut key = vec![0u8; offset];
    key.extend_from_slice(value);
    decode::entry(table, &key, action, Some(mask))
}

/// Insert `spec`; an existing entry with the same key is an error.
pub fn add(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    crate::table::add_entry(source, table, spec).map_err(|e| in_table_terms(table, e))
}

/// Replace the action of the existing entry `spec` keys.
pub fn modify(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    if table.storage == TableStorage::Ternary {
        let encoded = encode_entry(table, spec)?;
        let (key, bucket, at) = find_rule(source, table, &encoded)?;
        let mut rules = ternary::rules(table, &bucket)?;
        if let Some(rule) = rules.get_mut(at) {
            rule.2 = encoded.value;
        }
        let bucket = ternary::bucket(table, rules)?;
        return source
            .map(&table.map)?
            .write(&key, &bucket, Write::Replace)
            .map_err(|e| in_table_terms(table, e));
    }
    let (key, value) = locate(table, spec)?;
    let map = source.map(&table.map)?;
    map.read(&key).map_err(|e| in_table_terms(table, e))?;
    map.write(&key, &value, Write::Replace)
        .map_err(|e| in_table_terms(table, e))
}

/// Remove the entry `spec` keys (its action is ignored).
pub fn delete(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    if table.storage == TableStorage::Ternary {
        let encoded = encode_entry(table, spec)?;
        let (key, bucket, at) = find_rule(source, table, &encoded)?;
        let mut rules = ternary::rules(table, &bucket)?;
        if at < rules.len() {
            rules.remove(at);
        }
        let map = source.map(&table.map)?;
        return if rules.is_empty() {
            delete_key(&map, &key).map_err(|e| in_table_terms(table, e))
        } else {
            map.write(&key, &ternary::bucket(table, rules)?, Write::Replace)
                .map_err(|e| in_table_terms(table, e))
        };
    }
    if table.storage == TableStorage::Array {
        // Array slots cannot be removed: zero the slot back to "never written".
        let (key, value) = locate(table, spec)?;
        return source
            .map(&table.map)?
            .write(&key, &vec![0u8; value.len()], Write::Replace);
    }
    let (key, _) = locate(table, spec)?;
    delete_key(&source.map(&table.map)?, &key).map_err(|e| in_table_terms(table, e))
}

/// The entry `spec` keys.
pub fn get(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<Entry> {
    let encoded = encode_entry(table, spec)?;
    if table.storage == TableStorage::Ternary {
        let (_, bucket, at) = find_rule(source, table, &encoded)?;
        let rules = ternary::rules(table, &bucket)?;
        let (value, mask, action) = rules.get(at).ok_or_else(|| no_entry(table))?;
        return rule_entry(table, value, mask, action);
    }
    let value = first(
        source
            .map(&table.map)?
            .read(&encoded.key)
            .map_err(|e| in_table_terms(table, e))?,
    );
    decode::entry(table, &encoded.key, &value, None)
}

/// Every entry of `table`.
pub fn dump(source: &impl MapSource, table: &Table) -> Result<Vec<Entry>> {
    let Some(name) = table.entry_map() else {
        return Ok(Vec::new());
    };
    let map = source.map(name)?;
    let mut entries = Vec::new();
    for key in keys(&map)? {
        let value = match map.read(&key) {
            Ok(values) => first(values),
            // Deleted by someone else between the walk and the read.
            Err(RuntimeError::KeyNotFound { .. }) => continue,
            Err(other) => return Err(other),
        };
        if table.storage == TableStorage::Ternary {
            for (v, m, action) in ternary::rules(table, &value)? {
                entries.push(rule_entry(table, &v, &m, &action)?);
            }
            continue;
        }
        if table.storage == TableStorage::Array && value.iter().all(|b| *b == 0) {
            continue;
        }
        entries.push(decode::entry(table, &key, &value, None)?);
    }
    Ok(entries)
}

/// Remove every entry (and, for ternary, every group); returns how many.
pub fn clear(source: &impl MapSource, table: &Table) -> Result<usize> {
    let Some(name) = table.entry_map() else {
        return Ok(0);
    };
    let map = source.map(name)?;
    let mut removed = 0;
    for key in keys(&map)? {
        if table.storage == TableStorage::Array {
            let value = first(map.read(&key)?);
            if value.iter().any(|b| *b != 0) {
                map.write(&key, &vec![0u8; value.len()], Write::Replace)?;
                removed += 1;
            }
            continue;
        }
        let rules = match (&table.storage, read_optional(&map, &key)?) {
            (TableStorage::Ternary, Some(bucket)) => ternary::rules(table, &bucket)?.len(),
            _ => 1,
        };
        match delete_key(&map, &key) {
            Ok(()) => removed += rules,
            Err(RuntimeError::KeyNotFound { .. }) => {}
            Err(other) => return Err(other),
        }
    }
    if let Some(layout) = &table.ternary {
        let groups = source.map(&layout.groups_map)?;
        let used = crate::table::used_groups(table, layout, &groups)?;
        for slot in 0..used.len() as u32 {
            let empty = vec![0u8; layout.group_value_size as usize];
            groups.write(&slot.to_ne_bytes(), &empty, Write::Replace)?;
        }
    }
    Ok(removed)
}

fn first(values: Vec<Vec<u8>>) -> Vec<u8> {
    values.into_iter().next().unwrap_or_default()
}
