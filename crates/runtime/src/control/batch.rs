//! Many entries at once, all or nothing, over one table or several. Every
//! entry is encoded and checked before its table is written, so a bad
//! value writes nothing, and the error says which entry it was.
//!
//! Hash and lpm-trie entries are encoded as they are added to a
//! [`TableBatch`] and kept as map records (`Packed`, which also inserts
//! them: a batch map update, or one insert-only update each, see there).
//! Ternary tables are built in memory and written bucket by bucket
//! (`ternary_store`); other storages count their entries for room, then
//! insert one by one. When a table's write fails (a key already there, a
//! full table, no memory), what this call wrote is deleted again, that
//! table's and the tables' before it: none of its keys existed before.
//! Run it under the pipeline's writer lock so nobody adds in between.

use super::count_entries;
use super::packed::{room, Packed, Refusal};
use crate::entry::{encode_entry, EncodedEntry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map_source::MapSource;
use p4bpf_layout::{Table, TableStorage};

/// Why a batch wrote nothing: the error and, when one entry caused it, its
/// place (batch index, entry index within that batch's specs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchError {
    pub at: Option<(usize, usize)>,
    pub error: RuntimeError,
}

/// The entries to insert into one table.
pub struct TableBatch<'t> {
    table: &'t Table,
    entries: Entries,
}

enum Entries {
    Packed(Packed),
    Specs(Vec<EntrySpec>),
}

impl<'t> TableBatch<'t> {
    pub fn new(table: &'t Table) -> TableBatch<'t> {
        let entries = match Packed::for_table(table) {
            Some(packed) => Entries::Packed(packed),
            None => Entries::Specs(Vec::new()),
        };
        TableBatch { table, entries }
    }

    pub fn table(&self) -> &'t Table {
        self.table
    }

    /// Add `spec`; a hash or lpm entry is encoded now, so a bad value is
    /// refused here.
    pub fn push(&mut self, spec: &EntrySpec) -> Result<()> {
        match &mut self.entries {
            Entries::Packed(packed) => packed.push(self.table, &encode_entry(self.table, spec)?),
            Entries::Specs(specs) => {
                specs.push(spec.clone());
                Ok(())
            }
        }
    }

    /// Add the entries of `later`, another batch of the same table (the
    /// entries of later lines, encoded on another thread).
    pub fn append(&mut self, later: TableBatch) -> Result<()> {
        match (&mut self.entries, later.entries) {
            (_, _) if later.table.name != self.table.name => Err(RuntimeError::Value(format!(
                "cannot join the entries of tables `{}` and `{}`",
                self.table.name, later.table.name
            ))),
            (Entries::Packed(packed), Entries::Packed(more)) => packed.append(self.table, more),
            (Entries::Specs(specs), Entries::Specs(more)) => {
                specs.extend(more);
                Ok(())
            }
            _ => Err(RuntimeError::Value(format!(
                "table `{}`: batches stored two ways",
                self.table.name
            ))),
        }
    }

    pub fn len(&self) -> usize {
        match &self.entries {
            Entries::Packed(packed) => packed.len(),
            Entries::Specs(specs) => specs.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
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
    let mut built = Vec::with_capacity(batches.len());
    for (index, (table, specs)) in batches.iter().enumerate() {
        let mut batch = TableBatch::new(table);
        for (entry, spec) in specs.iter().enumerate() {
            batch.push(spec).map_err(|error| BatchError {
                at: Some((index, entry)),
                error,
            })?;
        }
        built.push(batch);
    }
    insert_table_batches(source, &built)
}

/// Insert every table's batch, all or nothing; returns how many entries.
pub fn insert_table_batches(
    source: &impl MapSource,
    batches: &[TableBatch],
) -> std::result::Result<usize, BatchError> {
    let mut encoded = Vec::with_capacity(batches.len());
    for (index, batch) in batches.iter().enumerate() {
        let checked = check(source, batch).map_err(|(entry, error)| BatchError {
            at: entry.map(|e| (index, e)),
            error,
        })?;
        encoded.push(checked);
    }
    let mut written = 0;
    for (index, (batch, entries)) in batches.iter().zip(&encoded).enumerate() {
        if let Err((entry, error)) = write(source, batch, entries) {
            for batch in batches.iter().take(index) {
                remove(source, batch);
            }
            return Err(BatchError {
                at: entry.map(|e| (index, e)),
                error,
            });
        }
        written += batch.len();
    }
    Ok(written)
}

/// A spec batch encoded, with room checked (a packed batch is checked as
/// it is written).
fn check(
    source: &impl MapSource,
    batch: &TableBatch,
) -> std::result::Result<Vec<EncodedEntry>, Refusal> {
    let Entries::Specs(specs) = &batch.entries else {
        return Ok(Vec::new());
    };
    let mut encoded = Vec::with_capacity(specs.len());
    for (index, spec) in specs.iter().enumerate() {
        encoded.push(encode_entry(batch.table, spec).map_err(|e| (Some(index), e))?);
    }
    let present = count_entries(source, batch.table).map_err(|e| (None, e))?;
    room(batch.table, present, specs.len())?;
    Ok(encoded)
}

/// Write one table's batch; on failure, what it wrote is removed again.
fn write(
    source: &impl MapSource,
    batch: &TableBatch,
    encoded: &[EncodedEntry],
) -> std::result::Result<(), Refusal> {
    let table = batch.table;
    let map = source.map(&table.map).map_err(|e| (None, e))?;
    let specs = match &batch.entries {
        Entries::Packed(packed) => return packed.insert(&map, table),
        Entries::Specs(specs) => specs,
    };
    if table.storage == TableStorage::Ternary {
        let written = crate::ternary_store::Store::open(source, table)
            .and_then(|mut store| store.insert_all(encoded));
        return written.map_err(|error| {
            delete_specs(source, table, specs);
            (None, error)
        });
    }
    for (index, spec) in specs.iter().enumerate() {
        if let Err(error) = super::add(source, table, spec) {
            delete_specs(source, table, specs.get(..index).unwrap_or_default());
            return Err((Some(index), error));
        }
    }
    Ok(())
}

/// Best effort: delete what a batch wrote.
fn remove(source: &impl MapSource, batch: &TableBatch) {
    match &batch.entries {
        Entries::Packed(packed) => {
            if let Ok(map) = source.map(&batch.table.map) {
                packed.remove(&map, packed.len());
            }
        }
        Entries::Specs(specs) => delete_specs(source, batch.table, specs),
    }
}

fn delete_specs(source: &impl MapSource, table: &Table, specs: &[EntrySpec]) {
    for spec in specs {
        let _ = super::delete(source, table, spec);
    }
}
