//! Writes table entries and default actions of a loaded pipeline into its
//! maps. Everything is encoded before anything is written, so a bad value
//! leaves the table as it was.
//!
//! Ternary tables (tuple-space search, as the compiler lays them out): an
//! array of masks, each slot `{u32 used; u32 pad; mask}`, and the entry map
//! keyed by `{u32 mask index; u32 pad; masked key}`. An entry reuses the
//! slot of an equal mask or takes the first free one; the slot is marked
//! used only after the entry is in, so a failed insert changes nothing the
//! data path reads.

use crate::entry::{encode_action, encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::pipeline::LoadedPipeline;
use p4bpf_layout::Table;

/// Insert `spec` into `table`; an existing entry with the same key is an error.
pub fn add_entry(pipeline: &LoadedPipeline, table: &Table, spec: &EntrySpec) -> Result<()> {
    let entry = encode_entry(table, spec)?;
    let map = pipeline.map(&table.map)?;
    let Some(mask) = entry.mask else {
        return map.write(&entry.key, &entry.value, Write::Insert).map_err(|e| in_table(table, e));
    };
    let ternary = table.ternary.as_ref().ok_or_else(|| in_table(table, RuntimeError::Value("no ternary layout".into())))?;
    let masks = pipeline.map(&ternary.masks_map)?;
    check_ternary_sizes(table, &map, &masks)?;
    let (slot, is_new) = mask_slot(table, &masks, &mask)?;
    let mut key = with_header(slot, &entry.key);
    key.resize(map.key_size() as usize, 0);
    map.write(&key, &entry.value, Write::Insert).map_err(|e| in_table(table, e))?;
    if is_new {
        let mut used = with_header(1, &mask);
        used.resize(masks.value_size() as usize, 0);
        masks.write(&slot.to_ne_bytes(), &used, Write::Replace)?;
    }
    Ok(())
}

/// Bytes before the key (or mask) in ternary entry keys and mask slots.
const TERNARY_HEADER: usize = 8;

fn with_header(word: u32, body: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0u8; TERNARY_HEADER];
    bytes[..4].copy_from_slice(&word.to_ne_bytes());
    bytes.extend_from_slice(body);
    bytes
}

fn check_ternary_sizes(table: &Table, entries: &Map, masks: &Map) -> Result<()> {
    let needed = TERNARY_HEADER as u32 + table.key_size;
    if entries.key_size() < needed || masks.value_size() < needed {
        return Err(RuntimeError::BadObject(format!(
            "ternary table `{}`: maps `{}` and `{}` are smaller than an {TERNARY_HEADER}-byte header plus the {}-byte key",
            table.name,
            entries.name(),
            masks.name(),
            table.key_size
        )));
    }
    Ok(())
}

/// The slot holding `mask`, or the first free one (`true`: not yet used).
fn mask_slot(table: &Table, masks: &Map, mask: &[u8]) -> Result<(u32, bool)> {
    let mut free = None;
    for slot in 0..masks.max_entries() {
        let values = masks.read(&slot.to_ne_bytes())?;
        let Some(value) = values.first() else { continue };
        let used = value.get(..4).is_some_and(|w| w != [0, 0, 0, 0]);
        let stored = value.get(TERNARY_HEADER..TERNARY_HEADER + mask.len());
        if used && stored == Some(mask) {
            return Ok((slot, false));
        }
        if !used && free.is_none() {
            free = Some(slot);
        }
    }
    free.map(|slot| (slot, true)).ok_or_else(|| {
        RuntimeError::Value(format!(
            "table `{}` already uses all {} masks it can search; this entry needs another",
            table.name,
            masks.max_entries()
        ))
    })
}

/// Make action `action_index` with `args` the default of `table`.
pub fn set_default(pipeline: &LoadedPipeline, table: &Table, action_index: usize, args: &[(usize, String)]) -> Result<()> {
    let Some(default_map) = &table.default_map else {
        return Err(RuntimeError::Value(format!(
            "table `{}` has a const default action, which cannot be changed",
            table.name
        )));
    };
    if let Some(action) = table.actions.get(action_index).filter(|a| a.table_only) {
        return Err(RuntimeError::Value(format!(
            "table `{}`: action `{}` is @tableonly and cannot be the default",
            table.name, action.name
        )));
    }
    let value = encode_action(table, action_index, args)?;
    pipeline.map(default_map)?.write(&0u32.to_ne_bytes(), &value, Write::Replace)
}

fn in_table(table: &Table, error: RuntimeError) -> RuntimeError {
    match error {
        RuntimeError::Value(why) => RuntimeError::Value(format!("table `{}`: {why}", table.name)),
        other => other,
    }
}
