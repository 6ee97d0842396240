//! Many entries at once. Every entry is encoded and checked before anything
//! is written: the table must have room for all of them and none of their
//! keys may be present already or twice in the batch, so a bad entry, a
//! duplicate or a full table writes nothing. Hash tables go to the kernel
//! with `BPF_MAP_UPDATE_BATCH` in chunks (one system call per chunk instead
//! of per entry); the kernel takes no "insert only" flag there, hence the
//! duplicate check against the table's keys beforehand (one walk of the
//! table; run it under the pipeline's writer lock so nobody adds between
//! check and write). Other storages, and kernels without batch support,
//! insert one by one.

use super::{count_entries, in_table_terms, keys};
use crate::entry::{encode_entry, EntrySpec};
use crate::error::{Result, RuntimeError};
use crate::map_source::MapSource;
use crate::sys_ops;
use p4bpf_layout::{Table, TableStorage};
use std::collections::HashSet;

/// Entries per batch call: large enough to amortise the call, small enough
/// to keep the kernel's copy in cache.
const CHUNK: usize = 8192;
/// `EINVAL`/`ENOTSUPP`-style answers of a map type without batch support.
const EINVAL: i32 = 22;
const ENOTSUPP: i32 = 524;

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
    for chunk in encoded.chunks(CHUNK) {
        let keys: Vec<u8> = chunk.iter().flat_map(|e| e.key.iter().copied()).collect();
        let values: Vec<u8> = chunk.iter().flat_map(|e| e.value.iter().copied()).collect();
        let mut count = chunk.len() as u32;
        let options = sys_ops::MapBatchOpts {
            sz: std::mem::size_of::<sys_ops::MapBatchOpts>(),
            elem_flags: 0,
            flags: 0,
        };
        // SAFETY: `keys` and `values` hold `count` keys and values of the
        // map's sizes (encode_entry sized them from the same layout).
        let fd = map.fd()?;
        let status = unsafe {
            sys_ops::bpf_map_update_batch(
                fd,
                keys.as_ptr().cast(),
                values.as_ptr().cast(),
                &mut count,
                &options,
            )
        };
        match -status {
            0 => {}
            EINVAL | ENOTSUPP if count == 0 => {
                for entry in chunk {
                    map.write(&entry.key, &entry.value, crate::map::Write::Insert)
                        .map_err(|e| in_table_terms(table, e))?;
                }
            }
            errno => {
                return Err(in_table_terms(
                    table,
                    RuntimeError::os(
                        format!("batch insert into `{}` (after {count} entries)", table.name),
                        errno,
                    ),
                ))
            }
        }
    }
    Ok(specs.len())
}
