//! Many entries at once. Every entry is encoded and checked before anything
//! is written: the table must have room for all of them and none of their
//! keys may be present already or twice in the batch, so a bad entry, a
//! duplicate or a full table writes nothing. Hash tables go to the kernel
//! with `BPF_MAP_UPDATE_BATCH` in chunks through `bench::fill` (one system
//! call per chunk instead of per entry); the kernel takes no "insert only" flag there, hence the
//! duplicate check against the table's keys beforehand (one walk of the
//! table; run it under the pipeline's writer lock so nobody adds between
//! check and write). Ternary tables are built in memory and written bucket
//! by bucket (`ternary_store`). Other storages, and kernels without batch
//! support, insert one by one.

use super::{count_entries, in_table_terms, keys};
use crate::bench::fill;
use crate::entry::{encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map_source::MapSource;
use p4bpf_layout::{Table, TableStorage};
use std::collections::HashSet;

/// Insert every entry of `specs` into `table`; returns how many.
pub fn insert_batch(source: &impl MapSource, table: &Table, specs: &[EntrySpec]) -> Result<usize> {
    let encoded = specs
        .iter()
        .map(|spec| encode_entry(table, spec))
        .collect::<Result<Vec<_>>>()?;
    let present = count_entries(source, table)?;
    if present + specs.len() > table.size as usize {
        return Err(RuntimeError::Value(format!(
            "table `{}` is full: it has {present} of {} entries, {} more do not fit",
            table.name,
            table.size,
            specs.len()
        )));
    }
    if table.storage == TableStorage::Ternary {
        crate::ternary_store::Store::open(source, table)?.insert_all(&encoded)?;
        return Ok(specs.len());
    }
    let map = source.map(&table.map)?;
    if table.storage != TableStorage::Hash || map.per_cpu() {
        for spec in specs {
            super::add(source, table, spec)?;
        }
        return Ok(specs.len());
    }
    let mut seen: HashSet<Vec<u8>> = keys(&map)?.into_iter().collect();
    if encoded.iter().any(|entry| !seen.insert(entry.key.clone())) {
        return Err(RuntimeError::Value(format!(
            "table `{}` already has an entry with a key of this batch (or the batch repeats one)",
            table.name
        )));
    }
    let keys: Vec<u8> = encoded.iter().flat_map(|e| e.key.iter().copied()).collect();
    let values: Vec<u8> = encoded
        .iter()
        .flat_map(|e| e.value.iter().copied())
        .collect();
    let Some(first) = encoded.first() else {
        return Ok(0);
    };
    let (key_size, value_size) = (first.key.len(), first.value.len());
    fill::write_all(map.fd()?, &keys, key_size, &values, value_size)
        .map_err(|e| in_table_terms(table, e))?;
    Ok(specs.len())
}
