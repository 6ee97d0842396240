//! Direct counters and meters: their cells live in the values of table
//! entries (`p4bpf_layout::DirectExtern`), so reading one reads the
//! entry, and a new entry starts from zero. Counter cells are shared by
//! every CPU (the data path adds atomically): no sum here. A write (reset,
//! meter rates) rewrites the entry's value with the cell changed; a packet
//! counted between the read and the write is lost. A ternary table's
//! rules keep theirs in a cells map (`crate::ternary_cells`).

use crate::control::{self, Entry};
use crate::counter::CounterValue;
use crate::entry::{encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::meter::MeterConfig;
use p4bpf_layout::{CounterKind, DirectExtern, DirectKind, Table, TableStorage};

/// One entry of a table with its direct counter's counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectCount {
    pub entry: Entry,
    pub value: CounterValue,
}

/// The counts of `counter` in the entry `spec` keys.
pub fn read_counter(
    source: &impl MapSource,
    table: &Table,
    counter: &DirectExtern,
    spec: &EntrySpec,
) -> Result<CounterValue> {
    let (_, value) = entry_value(source, table, spec)?;
    counts(counter, &value)
}

/// Every entry of `table` with its counts of `counter`.
pub fn counter_entries(
    source: &impl MapSource,
    table: &Table,
    counter: &DirectExtern,
) -> Result<Vec<DirectCount>> {
    if table.storage == TableStorage::Ternary {
        return crate::ternary_cells::counter_entries(source, table, |value| {
            counts(counter, value)
        });
    }
    let map = source.map(&table.map)?;
    let mut out = vec![];
    for (key, value) in entries(&map, table)? {
        out.push(DirectCount {
            entry: control::decode_entry(table, &key, &value, None)?,
            value: counts(counter, &value)?,
        });
    }
    Ok(out)
}

/// Zeroes `counter` in the entry `spec` keys, or in every entry.
pub fn reset_counter(
    source: &impl MapSource,
    table: &Table,
    counter: &DirectExtern,
    spec: Option<&EntrySpec>,
) -> Result<()> {
    let size = counter_size(counter)?;
    let zero = vec![0u8; size];
    match spec {
        Some(spec) => {
            let (key, value) = entry_value(source, table, spec)?;
            write_cell(source, table, counter, &key, value, &zero)
        }
        None if table.storage == TableStorage::Ternary => {
            for (key, value) in crate::ternary_cells::values(source, table)? {
                write_cell(source, table, counter, &key, value, &zero)?;
            }
            Ok(())
        }
        None => {
            let map = source.map(&table.map)?;
            for (key, value) in entries(&map, table)? {
                write_cell(source, table, counter, &key, value, &zero)?;
            }
            Ok(())
        }
    }
}

/// Sets the rates of `meter` in the entry `spec` keys, its buckets full.
pub fn set_meter(
    source: &impl MapSource,
    table: &Table,
    meter: &DirectExtern,
    spec: &EntrySpec,
    config: MeterConfig,
) -> Result<()> {
    is_meter(meter)?;
    config.check(&meter.name)?;
    let (key, value) = entry_value(source, table, spec)?;
    write_cell(source, table, meter, &key, value, &config.cell())
}

/// The rates of `meter` in the entry `spec` keys (zeros: never set).
pub fn get_meter(
    source: &impl MapSource,
    table: &Table,
    meter: &DirectExtern,
    spec: &EntrySpec,
) -> Result<MeterConfig> {
    is_meter(meter)?;
    let (_, value) = entry_value(source, table, spec)?;
    let at = meter.offset as usize;
    Ok(MeterConfig::of_cell(value.get(at..).unwrap_or_default()))
}

fn is_meter(direct: &DirectExtern) -> Result<()> {
    match direct.kind {
        DirectKind::Meter { .. } => Ok(()),
        DirectKind::Counter(_) => Err(RuntimeError::Value(format!(
            "`{}` is a direct counter, not a meter",
            direct.name
        ))),
    }
}

/// Bytes of a counter cell: a u64 per count.
fn counter_size(direct: &DirectExtern) -> Result<usize> {
    match direct.kind {
        DirectKind::Counter(CounterKind::PacketsAndBytes) => Ok(16),
        DirectKind::Counter(_) => Ok(8),
        DirectKind::Meter { .. } => Err(RuntimeError::Value(format!(
            "`{}` is a direct meter, not a counter",
            direct.name
        ))),
    }
}

/// The counts a value holds in `counter`'s cell.
fn counts(counter: &DirectExtern, value: &[u8]) -> Result<CounterValue> {
    counter_size(counter)?;
    let word = |slot: usize| {
        let at = counter.offset as usize + 8 * slot;
        value
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_ne_bytes)
    };
    Ok(match counter.kind {
        DirectKind::Counter(CounterKind::Packets) => CounterValue {
            packets: Some(word(0)),
            bytes: None,
        },
        DirectKind::Counter(CounterKind::Bytes) => CounterValue {
            packets: None,
            bytes: Some(word(0)),
        },
        _ => CounterValue {
            packets: Some(word(0)),
            bytes: Some(word(1)),
        },
    })
}

/// The map key and current value of the entry `spec` keys.
fn entry_value(
    source: &impl MapSource,
    table: &Table,
    spec: &EntrySpec,
) -> Result<(Vec<u8>, Vec<u8>)> {
    if table.storage == TableStorage::Ternary {
        return crate::ternary_cells::value(source, table, spec);
    }
    let key = encode_entry(table, spec)?.key;
    let value = source
        .map(&table.map)?
        .read(&key)
        .map_err(|e| match e {
            RuntimeError::KeyNotFound { .. } => {
                RuntimeError::Value(format!("table `{}` has no entry with this key", table.name))
            }
            other => other,
        })?
        .into_iter()
        .next()
        .unwrap_or_default();
    if is_unused_slot(table, &value) {
        return Err(RuntimeError::Value(format!(
            "table `{}` has no entry with this key",
            table.name
        )));
    }
    Ok((key, value))
}

/// An array table's slot nobody wrote (action code 0).
fn is_unused_slot(table: &Table, value: &[u8]) -> bool {
    table.storage == p4bpf_layout::TableStorage::Array
        && value
            .get(..4)
            .is_some_and(|code| code.iter().all(|b| *b == 0))
}

/// Every entry's key and value.
fn entries(map: &Map, table: &Table) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut out = vec![];
    for key in control::keys(map)? {
        let value = match map.read(&key) {
            Ok(values) => values.into_iter().next().unwrap_or_default(),
            // Deleted between the walk and the read.
            Err(RuntimeError::KeyNotFound { .. }) => continue,
            Err(other) => return Err(other),
        };
        if !is_unused_slot(table, &value) {
            out.push((key, value));
        }
    }
    Ok(out)
}

/// Writes `value` back under `key` with `cell` at `direct`'s offset.
fn write_cell(
    source: &impl MapSource,
    table: &Table,
    direct: &DirectExtern,
    key: &[u8],
    mut value: Vec<u8>,
    cell: &[u8],
) -> Result<()> {
    let at = direct.offset as usize;
    let Some(place) = value.get_mut(at..at + cell.len()) else {
        return Err(RuntimeError::Value(format!(
            "table `{}`'s values are too short for `{}`: recompile the program",
            table.name, direct.name
        )));
    };
    place.copy_from_slice(cell);
    let map = crate::ternary_cells::map_name(table).unwrap_or(&table.map);
    source.map(map)?.write(key, &value, Write::Replace)
}
