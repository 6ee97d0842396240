//! Writes table entries and default actions of a loaded pipeline into its
//! maps. Everything is encoded before anything is written, so a bad value
//! leaves the table as it was.
//!
//! Ternary tables (grouped tuple space, see [`crate::ternary`]) go
//! through [`crate::ternary_store::Store`], which orders its writes so the
//! data path never sees a half-made change.

use crate::entry::{encode_action, encode_entry, EncodedEntry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::Write;
use crate::map_source::MapSource;
use p4bpf_layout::Table;

/// Insert `spec` into `table`; an existing entry with the same key is an error.
pub fn add_entry(pipeline: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<()> {
    add_encoded(pipeline, table, &encode_entry(table, spec)?)
}

/// Insert the encoded `entry` into `table`; an existing entry with the
/// same key is an error.
pub fn add_encoded(pipeline: &impl MapSource, table: &Table, entry: &EncodedEntry) -> Result<()> {
    let map = pipeline.map(&table.map)?;
    if entry.mask.is_none() {
        return map
            .write(&entry.key, &entry.value, Write::Insert)
            .map_err(|e| in_table(table, e));
    }
    crate::ternary_store::Store::open_for_change(pipeline, table)?.insert(entry)
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
