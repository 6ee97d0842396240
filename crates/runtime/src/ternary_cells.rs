//! The direct counters and meters of a ternary table's rules, for
//! `crate::direct`: each rule's whole value, cells included, is an
//! element of the table's cells map (`p4bpf_layout::TernaryCells`), at
//! the slot its classifier gave it.

use crate::control;
use crate::counter::CounterValue;
use crate::direct::DirectCount;
use crate::entry::{encode_entry, EntrySpec};
use crate::error::Result;
use crate::map_source::MapSource;
use crate::ternary_store::Store;
use p4bpf_layout::Table;

/// The cells map of `table`, if it is a ternary table with direct cells.
pub fn map_name(table: &Table) -> Option<&str> {
    let cells = table.ternary.as_ref()?.cells.as_ref()?;
    Some(&cells.map)
}

/// The cells map's key and value of the rule `spec` names.
pub fn value(
    source: &impl MapSource,
    table: &Table,
    spec: &EntrySpec,
) -> Result<(Vec<u8>, Vec<u8>)> {
    Store::open(source, table)?.cell(&encode_entry(table, spec)?)
}

/// Every rule's cells map key and value.
pub fn values(source: &impl MapSource, table: &Table) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let store = Store::open(source, table)?;
    let cells = store.cells()?;
    Ok(cells
        .into_iter()
        .map(|(_, key, value)| (key, value))
        .collect())
}

/// Every rule as an entry, with what `counts` reads in its value.
pub fn counter_entries(
    source: &impl MapSource,
    table: &Table,
    counts: impl Fn(&[u8]) -> Result<CounterValue>,
) -> Result<Vec<DirectCount>> {
    let store = Store::open(source, table)?;
    let cells = store.cells()?;
    (cells.into_iter())
        .map(|(rule, _, value)| {
            Ok(DirectCount {
                entry: control::rule_entry(table, rule)?,
                value: counts(&value)?,
            })
        })
        .collect()
}
