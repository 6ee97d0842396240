//! Entry operations: add (`table::add_entry`, with a full table said in
//! table terms), modify, delete and get by key, dump and clear. A ternary entry lives
//! under the mask slot holding its mask; a slot is kept after its last
//! entry goes (searching an empty slot finds nothing), except by `clear`,
//! which empties the slots too.

use super::decode::{self, Entry};
use super::{delete_key, in_table_terms, keys};
use crate::entry::{encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use p4bpf_layout::{Table, TableStorage};

/// The map key of `spec` and the entry value it would store.
fn locate(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<(Vec<u8>, Vec<u8>)> {
    let encoded = encode_entry(table, spec)?;
    let (Some(mask), Some(ternary)) = (&encoded.mask, &table.ternary) else {
        return Ok((encoded.key, encoded.value));
    };
    let masks = source.map(&ternary.masks_map)?;
    let no_entry =
        || RuntimeError::Value(format!("table `{}` has no entry with this key", table.name));
    let slot = mask_slots(&masks, table)?
        .into_iter()
        .find(|(_, stored)| stored == mask)
        .map(|(slot, _)| slot)
        .ok_or_else(no_entry)?;
    let mut key = slot.to_ne_bytes().to_vec();
    key.resize(ternary.entry_key_offset as usize, 0);
    key.extend_from_slice(&encoded.key);
    key.resize((ternary.entry_key_size as usize).max(key.len()), 0);
    Ok((key, encoded.value))
}

/// Used mask slots of a ternary table with their masks.
fn mask_slots(masks: &Map, table: &Table) -> Result<Vec<(u32, Vec<u8>)>> {
    let Some(ternary) = &table.ternary else {
        return Ok(Vec::new());
    };
    let start = ternary.mask_offset as usize;
    let length = table.key_size as usize;
    let mut used = Vec::new();
    for slot in 0..ternary.max_masks.min(masks.max_entries()) {
        let values = masks.read(&slot.to_ne_bytes())?;
        let Some(value) = values.first() else {
            continue;
        };
        if value.get(..4).is_some_and(|w| w != [0, 0, 0, 0]) {
            let mask = value
                .get(start..start + length)
                .unwrap_or_default()
                .to_vec();
            used.push((slot, mask));
        }
    }
    Ok(used)
}

/// Insert `spec`; an existing entry with the same key is an error.
pub fn add(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    crate::table::add_entry(source, table, spec).map_err(|e| in_table_terms(table, e))
}

/// Replace the action of the existing entry `spec` keys.
pub fn modify(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    let (key, value) = locate(source, table, spec)?;
    let map = source.map(&table.map)?;
    map.read(&key).map_err(|e| in_table_terms(table, e))?;
    map.write(&key, &value, Write::Replace)
        .map_err(|e| in_table_terms(table, e))
}

/// Remove the entry `spec` keys (its action is ignored).
pub fn delete(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    if table.storage == TableStorage::Array {
        // Array slots cannot be removed: zero the slot back to "never written".
        let (key, value) = locate(source, table, spec)?;
        return source
            .map(&table.map)?
            .write(&key, &vec![0u8; value.len()], Write::Replace);
    }
    let (key, _) = locate(source, table, spec)?;
    delete_key(&source.map(&table.map)?, &key).map_err(|e| in_table_terms(table, e))
}

/// The entry `spec` keys.
pub fn get(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<Entry> {
    let (key, _) = locate(source, table, spec)?;
    let encoded = encode_entry(table, spec)?;
    let value = first(
        source
            .map(&table.map)?
            .read(&key)
            .map_err(|e| in_table_terms(table, e))?,
    );
    decode::entry(table, &key, &value, encoded.mask.as_deref())
}

/// Every entry of `table`.
pub fn dump(source: &impl MapSource, table: &Table) -> Result<Vec<Entry>> {
    let map = source.map(&table.map)?;
    let masks = match &table.ternary {
        Some(ternary) => mask_slots(&source.map(&ternary.masks_map)?, table)?,
        None => Vec::new(),
    };
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
        let slot = u32::from_ne_bytes([0, 1, 2, 3].map(|i| key.get(i).copied().unwrap_or(0)));
        let mask = masks
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, m)| m.as_slice());
        entries.push(decode::entry(table, &key, &value, mask)?);
    }
    Ok(entries)
}

/// Remove every entry (and, for ternary, every mask); returns how many.
pub fn clear(source: &impl MapSource, table: &Table) -> Result<usize> {
    let map = source.map(&table.map)?;
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
    if let Some(ternary) = &table.ternary {
        let masks = source.map(&ternary.masks_map)?;
        for (slot, _) in mask_slots(&masks, table)? {
            let empty = vec![0u8; ternary.mask_value_size as usize];
            masks.write(&slot.to_ne_bytes(), &empty, Write::Replace)?;
        }
    }
    Ok(removed)
}

fn first(values: Vec<Vec<u8>>) -> Vec<u8> {
    values.into_iter().next().unwrap_or_default()
}
