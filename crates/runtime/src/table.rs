//! Writes table entries and default actions of a loaded pipeline into its
//! maps. Everything is encoded before anything is written, so a bad value
//! leaves the table as it was.
//!
//! Ternary tables (grouped tuple space, see [`crate::ternary`]): the entry's
//! bucket is rewritten whole; a group the entry opens is marked used only
//! after its bucket is in, so a failed insert changes nothing the data
//! path reads (used slots stay contiguous, as its probe loop needs).

use crate::entry::{encode_action, encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::ternary;
use p4bpf_layout::{Table, TernaryLayout};

/// Insert `spec` into `table`; an existing entry with the same key is an error.
pub fn add_entry(pipeline: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    let entry = encode_entry(table, spec)?;
    let map = pipeline.map(&table.map)?;
    if entry.mask.is_none() {
        return map
            .write(&entry.key, &entry.value, Write::Insert)
            .map_err(|e| in_table(table, e));
    }
    let layout = table
        .ternary
        .as_ref()
        .ok_or_else(|| in_table(table, RuntimeError::Value("no ternary layout".into())))?;
    let groups_map = pipeline.map(&layout.groups_map)?;
    let groups = used_groups(table, layout, &groups_map)?;
    let placed = ternary::place(table, &groups, &entry, |key| match map.read(key) {
        Ok(values) => Ok(values.into_iter().next()),
        Err(RuntimeError::KeyNotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    })
    .map_err(|e| in_table(table, e))?;
    map.write(&placed.bucket_key, &placed.bucket, Write::Replace)
        .map_err(|e| in_table(table, e))?;
    if let Some((slot, value)) = placed.new_group {
        groups_map.write(&slot.to_ne_bytes(), &value, Write::Replace)?;
    }
    Ok(())
}

/// The masks of the groups in use, in slot order.
pub fn used_groups(table: &Table, layout: &TernaryLayout, groups: &Map) -> Result<Vec<Vec<u8>>> {
    let mut masks = vec![];
    for slot in 0..layout.max_groups.min(groups.max_entries()) {
        let values = groups.read(&slot.to_ne_bytes())?;
        match values
            .first()
            .and_then(|v| ternary::group_mask(layout, v, table.key_size as usize))
        {
            Some(mask) => masks.push(mask),
            None => break,
        }
    }
    Ok(masks)
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
    let mut value = encode_action(table, action_index, args)?;
    let map = pipeline.map(default_map)?;
    // One map holds every table's default: its values fit the largest.
    value.resize(map.value_size() as usize, 0);
    map.write(&table.default_slot.to_ne_bytes(), &value, Write::Replace)
}

fn in_table(table: &Table, error: RuntimeError) -> RuntimeError {
    match error {
        RuntimeError::Value(why) => RuntimeError::Value(format!("table `{}`: {why}", table.name)),
        other => other,
    }
}
