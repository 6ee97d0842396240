//! Writes table entries and default actions of a loaded pipeline into its
//! maps. Everything is encoded before anything is written, so a bad value
//! leaves the table as it was.
//!
//! Ternary tables (tuple-space search, laid out as `TernaryLayout` says): an
//! array of mask slots `{u32 used; mask}`, and the entry map keyed by
//! `{u32 mask slot; masked key}`. An entry reuses the slot of an equal mask
//! or takes the first free one (so used slots stay contiguous, as the data
//! path's probe loop needs); the slot is marked used only after the entry
//! is in, so a failed insert changes nothing the data path reads.

use crate::entry::{encode_action, encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use p4bpf_layout::{Table, TernaryLayout};

/// Insert `spec` into `table`; an existing entry with the same key is an error.
pub fn add_entry(pipeline: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    let entry = encode_entry(table, spec)?;
    let map = pipeline.map(&table.map)?;
    let Some(mask) = entry.mask else {
        return map
            .write(&entry.key, &entry.value, Write::Insert)
            .map_err(|e| in_table(table, e));
    };
    let ternary = table
        .ternary
        .as_ref()
        .ok_or_else(|| in_table(table, RuntimeError::Value("no ternary layout".into())))?;
    let masks = pipeline.map(&ternary.masks_map)?;
    let (slot, is_new) = mask_slot(table, ternary, &masks, &mask)?;
    let key = with_slot(
        ternary.entry_key_size,
        slot,
        ternary.entry_key_offset,
        &entry.key,
    );
    map.write(&key, &entry.value, Write::Insert)
        .map_err(|e| in_table(table, e))?;
    if is_new {
        let used = with_slot(ternary.mask_value_size, 1, ternary.mask_offset, &mask);
        masks.write(&slot.to_ne_bytes(), &used, Write::Replace)?;
    }
    Ok(())
}

/// `size` bytes: `word` at 0 and `body` at `offset` (a layout that does not
/// fit gives a struct of the wrong size, which the map write rejects).
fn with_slot(size: u32, word: u32, offset: u32, body: &[u8]) -> Vec<u8> {
    let mut bytes = word.to_ne_bytes().to_vec();
    bytes.resize(offset as usize, 0);
    bytes.extend_from_slice(body);
    bytes.resize((size as usize).max(bytes.len()), 0);
    bytes
}

/// The slot holding `mask`, or the first free one (`true`: not yet used).
fn mask_slot(
    table: &Table,
    ternary: &TernaryLayout,
    masks: &Map,
    mask: &[u8],
) -> Result<(u32, bool)> {
    let mut free = None;
    let start = ternary.mask_offset as usize;
    for slot in 0..ternary.max_masks.min(masks.max_entries()) {
        let values = masks.read(&slot.to_ne_bytes())?;
        let Some(value) = values.first() else {
            continue;
        };
        let used = value.get(..4).is_some_and(|w| w != [0, 0, 0, 0]);
        let stored = value.get(start..start + mask.len());
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
            table.name, ternary.max_masks
        ))
    })
}

/// Make action `action_index` with `args` the default of `table`.
pub fn set_default(
    pipeline: &impl MapSource,
    table: &Table,
    action_index: usize,
    args: &[(usize, String)],
) -> Result<()> {
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
    pipeline
        .map(default_map)?
        .write(&0u32.to_ne_bytes(), &value, Write::Replace)
}

fn in_table(table: &Table, error: RuntimeError) -> RuntimeError {
    match error {
        RuntimeError::Value(why) => RuntimeError::Value(format!("table `{}`: {why}", table.name)),
        other => other,
    }
}
