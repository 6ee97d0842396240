//! Entry operations: add (`table::add_entry`, with a full table said in
//! table terms), modify, delete and get by key, dump and clear. A ternary
//! entry is a rule of the table's classifier (`crate::ternary`), changed
//! through `crate::ternary_store`, which orders the writes.

use super::decode::{self, Entry};
use super::{delete_key, in_table_terms, keys};
use crate::entry::{encode_entry, EncodedEntry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::Write;
use crate::map_source::MapSource;
use crate::ternary::Rule;
use crate::ternary_store::Store;
use p4bpf_layout::{Table, TableStorage};

/// The map key of `spec` and the entry value it would store (not for
/// ternary tables: see [`store`]).
fn locate(table: &Table, spec: &EntrySpec) -> Result<(Vec<u8>, Vec<u8>)> {
    let encoded = encode_entry(table, spec)?;
    Ok((encoded.key, encoded.value))
}

fn no_entry(table: &Table) -> RuntimeError {
    RuntimeError::Value(format!("table `{}` has no entry with this key", table.name))
}

fn store(source: &impl MapSource, table: &Table) -> Result<Store> {
    Store::open(source, table)
}

/// A rule in P4 terms (`decode` reads a ternary key after the slot word).
pub(crate) fn rule_entry(table: &Table, rule: &Rule) -> Result<Entry> {
    let offset = table
        .ternary
        .as_ref()
        .map_or(0, |t| t.bucket_key_offset as usize);
    let mut key = vec![0u8; offset];
    key.extend_from_slice(&rule.value);
    let mut entry = decode::entry(table, &key, &rule.action, Some(&rule.mask))?;
    if let Some((lo, hi)) = &rule.bounds {
        entry.keys.extend(decode::ranges(table, lo, hi));
    }
    Ok(entry)
}

/// Insert `spec`; an existing entry with the same key is an error.
pub fn add(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    crate::table::add_entry(source, table, spec).map_err(|e| in_table_terms(table, e))
}

/// Insert the encoded `entry` (an entry whose value the caller made
/// further, e.g. with a timer started); an existing one is an error.
pub fn add_encoded(source: &impl MapSource, table: &Table, entry: &EncodedEntry) -> Result<()> {
    crate::table::add_encoded(source, table, entry).map_err(|e| in_table_terms(table, e))
}

/// Replace the action of the existing entry `spec` keys; the entry's
/// direct counters and meters (the bytes after every action's
/// parameters) keep their state.
pub fn modify(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    if table.storage == TableStorage::Ternary {
        return store(source, table)?.modify(&encode_entry(table, spec)?);
    }
    let (key, mut value) = locate(table, spec)?;
    let map = source.map(&table.map)?;
    let old = first(map.read(&key).map_err(|e| in_table_terms(table, e))?);
    let params_end = table
        .actions
        .iter()
        .flat_map(|a| &a.params)
        .map(|p| (p.byte_offset + p.byte_len) as usize)
        .fold(4, usize::max);
    if let (Some(new), Some(kept)) = (value.get_mut(params_end..), old.get(params_end..)) {
        if new.len() == kept.len() {
            new.copy_from_slice(kept);
        }
    }
    map.write(&key, &value, Write::Replace)
        .map_err(|e| in_table_terms(table, e))
}

/// Remove the entry `spec` keys (its action is ignored).
pub fn delete(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    if table.storage == TableStorage::Ternary {
        return store(source, table)?.remove(&encode_entry(table, spec)?);
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
        let store = store(source, table)?;
        let rule = store
            .classifier()
            .find(table, &encoded)
            .ok_or_else(|| no_entry(table))?;
        return rule_entry(table, rule);
    }
    let value = first(
        source
            .map(&table.map)?
            .read(&encoded.key)
            .map_err(|e| in_table_terms(table, e))?,
    );
    decode::entry(table, &encoded.key, &value, None)
}

/// Whether `table` has an entry with `spec`'s key, for a duplicate
/// check before an insert: a ternary table's rules are found by key
/// without reading their values back. An error (a bad value) says no and
/// is left for the insert to report.
pub fn contains(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> bool {
    if table.storage != TableStorage::Ternary {
        return get(source, table, spec).is_ok();
    }
    let (Ok(encoded), Ok(store)) = (
        encode_entry(table, spec),
        Store::open_for_change(source, table),
    ) else {
        return false;
    };
    store.classifier().find(table, &encoded).is_some()
}

/// Every entry of `table`.
pub fn dump(source: &impl MapSource, table: &Table) -> Result<Vec<Entry>> {
    if table.storage == TableStorage::Ternary {
        let store = store(source, table)?;
        return store
            .classifier()
            .rules()
            .map(|rule| rule_entry(table, rule))
            .collect();
    }
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
        if table.storage == TableStorage::Array && value.iter().all(|b| *b == 0) {
            continue;
        }
        entries.push(decode::entry(table, &key, &value, None)?);
    }
    Ok(entries)
}

/// Remove every entry (and, for ternary, every group); returns how many.
pub fn clear(source: &impl MapSource, table: &Table) -> Result<usize> {
    if table.storage == TableStorage::Ternary {
        return store(source, table)?.clear();
    }
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
        match delete_key(&map, &key) {
            Ok(()) => removed += 1,
            Err(RuntimeError::KeyNotFound { .. }) => {}
            Err(other) => return Err(other),
        }
    }
    Ok(removed)
}

fn first(values: Vec<Vec<u8>>) -> Vec<u8> {
    values.into_iter().next().unwrap_or_default()
}
