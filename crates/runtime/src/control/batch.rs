//! Many entries at once, all or nothing, over one table or several. Every
//! entry is encoded and checked before anything is written: each table
//! must have room for its entries and none of their keys may be present
//! already or twice in the batch, so a bad entry, a duplicate or a full
//! table writes nothing, and the error says which entry it was.
//!
//! Hash and lpm-trie tables go to the kernel with `BPF_MAP_UPDATE_BATCH`
//! in chunks through `bench::fill` (one system call per chunk instead of
//! per entry; `fill` falls back to one update per entry where a kernel has
//! no batch op for the map type). The kernel takes no "insert only" flag
//! there (batch updates refuse `BPF_NOEXIST` with EINVAL), hence the
//! duplicate check beforehand: a walk of the table while it is small next
//! to the batch, else one lookup per entry, so the check never costs more
//! than a few system calls per entry however large the table (run it under
//! the pipeline's writer lock so nobody adds between check and write).
//! Ternary tables are built in memory and written bucket by bucket
//! (`ternary_store`). Other storages count their entries and insert one
//! by one. When a write
//! fails after all (a full table the check did not count, no memory),
//! everything this batch wrote is deleted again: none of its keys existed
//! before.

use super::{count_entries, delete_key, in_table_terms, keys_up_to};
use crate::bench::fill;
use crate::entry::{encode_entry, EncodedEntry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::map_source::MapSource;
use p4bpf_layout::{Table, TableStorage};
use std::collections::HashSet;

/// Why a batch wrote nothing: the error and, when one entry caused it, its
/// place (batch index, entry index within that batch's specs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchError {
    pub at: Option<(usize, usize)>,
    pub error: RuntimeError,
}

/// Insert every entry of `specs` into `table`; returns how many.
pub fn insert_batch(source: &impl MapSource, table: &Table, specs: &[EntrySpec]) -> Result<usize> {
    insert_batches(source, &[(table, specs)]).map_err(|e| e.error)
}

/// Insert every batch (a table and its entries), all or nothing; returns
/// how many entries.
pub fn insert_batches(
    source: &impl MapSource,
    batches: &[(&Table, &[EntrySpec])],
) -> std::result::Result<usize, BatchError> {
    let mut encoded = Vec::with_capacity(batches.len());
    for (index, (table, specs)) in batches.iter().enumerate() {
        let checked = check(source, table, specs).map_err(|(entry, error)| BatchError {
            at: entry.map(|e| (index, e)),
            error,
        })?;
        encoded.push(checked);
    }
    let mut written = 0;
    for (index, ((table, specs), entries)) in batches.iter().zip(&encoded).enumerate() {
        if let Err(failed) = write(source, table, specs, entries) {
            remove(
                source,
                table,
                &specs[..failed.done],
                &entries[..failed.done],
            );
            for ((table, specs), entries) in batches.iter().zip(&encoded).take(index) {
                remove(source, table, specs, entries);
            }
            return Err(BatchError {
                at: failed.entry.map(|e| (index, e)),
                error: failed.error,
            });
        }
        written += specs.len();
    }
    Ok(written)
}

/// Whether the storage takes batch writes of encoded keys and values.
fn batched(table: &Table) -> bool {
    matches!(table.storage, TableStorage::Hash | TableStorage::LpmTrie)
}

type CheckError = (Option<usize>, RuntimeError);

/// The entries encoded, with room and duplicates checked.
fn check(
    source: &impl MapSource,
    table: &Table,
    specs: &[EntrySpec],
) -> std::result::Result<Vec<EncodedEntry>, CheckError> {
    let mut encoded = Vec::with_capacity(specs.len());
    for (index, spec) in specs.iter().enumerate() {
        encoded.push(encode_entry(table, spec).map_err(|e| (Some(index), e))?);
    }
    let map = source.map(&table.map).map_err(|e| (None, e))?;
    if !batched(table) || map.per_cpu() {
        let present = count_entries(source, table).map_err(|e| (None, e))?;
        return room(table, present, specs.len()).map(|()| encoded);
    }
    // Which keys are taken: from a walk of the table while it is small
    // next to the batch, else one lookup per entry (a walk costs a system
    // call per key of the table, and tables grow). Without the walk, room
    // is the kernel's to refuse (`E2BIG`, `ENOSPC`); `write` then removes
    // the batch again.
    let walked = keys_up_to(&map, specs.len() / 2).map_err(|e| (None, e))?;
    if let Some(walked) = &walked {
        room(table, walked.len(), specs.len())?;
    }
    let existing: Option<HashSet<&[u8]>> = walked
        .as_ref()
        .map(|keys| keys.iter().map(Vec::as_slice).collect());
    let mut batch = HashSet::with_capacity(encoded.len());
    for (index, entry) in encoded.iter().enumerate() {
        let taken = match &existing {
            Some(existing) => existing.contains(entry.key.as_slice()),
            None => present(&map, &entry.key).map_err(|e| (None, e))?,
        };
        let why = if taken {
            "already has an entry with this key"
        } else if !batch.insert(entry.key.as_slice()) {
            "gets this key twice in the batch"
        } else {
            continue;
        };
        let error = RuntimeError::Value(format!("table `{}` {why}", table.name));
        return Err((Some(index), error));
    }
    Ok(encoded)
}

fn present(map: &Map, key: &[u8]) -> Result<bool> {
    match map.read(key) {
        Ok(_) => Ok(true),
        Err(RuntimeError::KeyNotFound { .. }) => Ok(false),
        Err(other) => Err(other),
    }
}

fn room(table: &Table, present: usize, more: usize) -> std::result::Result<(), CheckError> {
    if present + more > table.size as usize {
        let error = RuntimeError::Value(format!(
            "table `{}` is full: it has {present} of {} entries, {more} more do not fit",
            table.name, table.size
        ));
        return Err((None, error));
    }
    Ok(())
}

/// A write that stopped: how many entries went in (all may have, for a
/// batched table) and which one failed, if known.
struct WriteFailure {
    done: usize,
    entry: Option<usize>,
    error: RuntimeError,
}

fn write(
    source: &impl MapSource,
    table: &Table,
    specs: &[EntrySpec],
    encoded: &[EncodedEntry],
) -> std::result::Result<(), WriteFailure> {
    let whole = |error| WriteFailure {
        done: specs.len(),
        entry: None,
        error,
    };
    if table.storage == TableStorage::Ternary {
        let mut store = crate::ternary_store::Store::open(source, table).map_err(whole)?;
        return store.insert_all(encoded).map_err(whole);
    }
    let map = source.map(&table.map).map_err(whole)?;
    if !batched(table) || map.per_cpu() {
        for (index, spec) in specs.iter().enumerate() {
            super::add(source, table, spec).map_err(|error| WriteFailure {
                done: index,
                entry: Some(index),
                error,
            })?;
        }
        return Ok(());
    }
    let Some(first) = encoded.first() else {
        return Ok(());
    };
    let keys: Vec<u8> = encoded.iter().flat_map(|e| e.key.iter().copied()).collect();
    let values: Vec<u8> = encoded
        .iter()
        .flat_map(|e| e.value.iter().copied())
        .collect();
    let fd = map.fd().map_err(whole)?;
    fill::write_all(fd, &keys, first.key.len(), &values, first.value.len())
        .map_err(|e| whole(in_table_terms(table, e)))
}

/// Best effort: delete what this batch may have written.
fn remove(source: &impl MapSource, table: &Table, specs: &[EntrySpec], encoded: &[EncodedEntry]) {
    let Ok(map) = source.map(&table.map) else {
        return;
    };
    if batched(table) && !map.per_cpu() {
        for entry in encoded {
            let _ = delete_key(&map, &entry.key);
        }
        return;
    }
    for spec in specs {
        let _ = super::delete(source, table, spec);
    }
}
