//! Where the entries of a table with idle timers keep their timer cell
//! (the last 8 bytes of an entry's value, `p4bpf_layout::IdleTimer`): an
//! exact or lpm entry's value is in the table's map under the entry's
//! key; a ternary, range or optional rule's is in the table's cells map,
//! at the slot the rule holds (`p4bpf_layout::TernaryCells`), since the
//! lookup copies a rule out of its bucket. [`crate::idle`] and
//! [`crate::entry_timeout`] read and write timers through these.

use crate::control::{self, keys, Entry};
use crate::entry::{encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::map_source::MapSource;
use crate::ternary::Rule;
use crate::ternary_cells;
use crate::ternary_store::Store;
use p4bpf_layout::Table;

/// An entry's value, under `key` in `map`.
pub struct TimedValue {
    pub map: Map,
    pub key: Vec<u8>,
    pub value: Vec<u8>,
}

/// Every entry of a timed table, with its value.
pub struct TimedEntries {
    pub map: Map,
    pub entries: Vec<TimedEntry>,
}

/// One entry: its key in the map holding its value, and that value.
pub struct TimedEntry {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    /// A ternary rule, which the key (a cells slot) does not name.
    rule: Option<Rule>,
}

impl TimedEntry {
    /// The entry in P4 terms: decoded only when asked (a sweep decodes
    /// the idle entries alone).
    pub fn decode(&self, table: &Table) -> Result<Entry> {
        match &self.rule {
            Some(rule) => control::rule_entry(table, rule),
            None => control::decode_entry(table, &self.key, &self.value, None),
        }
    }
}

/// Whether `table`'s values live apart from its keys (ternary rules):
/// deleting a value there would not delete the entry.
pub fn in_cells(table: &Table) -> bool {
    ternary_cells::map_name(table).is_some()
}

/// The value of `table`'s entry `spec`.
pub fn of_entry(source: &impl MapSource, table: &Table, spec: &EntrySpec) -> Result<TimedValue> {
    let encoded = encode_entry(table, spec)?;
    if let Some(cells) = ternary_cells::map_name(table) {
        let (key, value) = Store::open(source, table)?.cell(&encoded)?;
        let map = source.map(cells)?;
        return Ok(TimedValue { map, key, value });
    }
    let map = source.map(&table.map)?;
    let value = map.read(&encoded.key)?.into_iter().next();
    Ok(TimedValue {
        map,
        key: encoded.key,
        value: value.unwrap_or_default(),
    })
}

/// Every entry of `table` with its value.
pub fn all(source: &impl MapSource, table: &Table) -> Result<TimedEntries> {
    if let Some(cells) = ternary_cells::map_name(table) {
        let store = Store::open(source, table)?;
        let entries = (store.cells()?.into_iter())
            .map(|(rule, key, value)| TimedEntry {
                key,
                value,
                rule: Some(rule.clone()),
            })
            .collect();
        let map = source.map(cells)?;
        return Ok(TimedEntries { map, entries });
    }
    let map = source.map(&table.map)?;
    let mut entries = Vec::new();
    for key in keys(&map)? {
        let value = match map.read(&key) {
            Ok(values) => values.into_iter().next().unwrap_or_default(),
            // Deleted by the data plane between the walk and the read.
            Err(RuntimeError::KeyNotFound { .. }) => continue,
            Err(other) => return Err(other),
        };
        entries.push(TimedEntry {
            key,
            value,
            rule: None,
        });
    }
    Ok(TimedEntries { map, entries })
}
