//! Table and counter operations by P4 name over any [`MapSource`] (a pinned
//! pipeline or one loaded in this process): entries from command-line words
//! (`KEY=VALUE... [ACTION [PARAM=VALUE...]]`), add, modify, delete, get,
//! dump, clear, default action, counters, and batch insertion. Encoding is
//! the runtime's `entry` module; every entry is fully encoded before any map
//! is touched, so a bad value leaves the table as it was.

mod batch;
mod counters;
pub(crate) mod decode;
mod packed;
mod tables;
mod words;

pub use batch::{insert_batch, insert_batches, insert_table_batches, BatchError, TableBatch};
pub use counters::{counter_cells, reset_counter, CounterCell};
pub use decode::{action as decode_action, entry as decode_entry, Entry};
pub(crate) use tables::rule_entry;
pub use tables::{add, add_encoded, clear, contains, delete, dump, get, modify};
pub use words::{key_only, parse_entry, parse_key, EntryWords};

use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::map_source::MapSource;
use crate::sys_ops;
use p4bpf_layout::{Table, TableStorage};

const ENOENT: i32 = 2;
/// What a full hash map (`E2BIG`) or lpm trie (`ENOSPC`) answers.
const E2BIG: i32 = 7;
const ENOSPC: i32 = 28;

/// Every key of `map`, in the kernel's order.
pub(crate) fn keys(map: &Map) -> Result<Vec<Vec<u8>>> {
    Ok(keys_up_to(map, usize::MAX)?.unwrap_or_default())
}

/// Every key of `map` if it has at most `limit`, else `None` (having read
/// only `limit + 1`: the walk costs a system call per key).
pub(crate) fn keys_up_to(map: &Map, limit: usize) -> Result<Option<Vec<Vec<u8>>>> {
    if let Some(keys) = map.user_keys() {
        return keys.map(|keys| Some(keys).filter(|k| k.len() <= limit));
    }
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let size = map.key_size() as usize;
    let fd = map.fd()?;
    while keys.len() <= limit {
        let mut next = vec![0u8; size];
        let previous = keys.last().map_or(std::ptr::null(), |k| k.as_ptr().cast());
        // SAFETY: both buffers hold a key of the map's size (NULL asks for
        // the first key).
        let status =
            unsafe { sys_ops::bpf_map_get_next_key(fd, previous, next.as_mut_ptr().cast()) };
        match -status {
            0 => keys.push(next),
            ENOENT => return Ok(Some(keys)),
            errno => {
                return Err(RuntimeError::os(
                    format!("walking map `{}`", map.name()),
                    errno,
                ))
            }
        }
    }
    Ok(None)
}

/// Delete `key` from `map`; a missing key is [`RuntimeError::KeyNotFound`].
pub(crate) fn delete_key(map: &Map, key: &[u8]) -> Result<()> {
    if key.len() != map.key_size() as usize {
        return Err(RuntimeError::BadObject(format!(
            "map `{}` has {}-byte keys, got {}",
            map.name(),
            map.key_size(),
            key.len()
        )));
    }
    match -map.delete_status(key)? {
        0 => Ok(()),
        ENOENT => Err(RuntimeError::KeyNotFound {
            map: map.name().to_string(),
        }),
        errno => Err(RuntimeError::os(
            format!("deleting from map `{}`", map.name()),
            errno,
        )),
    }
}

/// How many entries `table` holds (an array slot counts when written).
pub fn count_entries(source: &impl MapSource, table: &Table) -> Result<usize> {
    let Some(name) = table.entry_map() else {
        return Ok(0);
    };
    let map = source.map(name)?;
    match table.storage {
        TableStorage::Keyless => Ok(0),
        // A bucket holds several rules.
        TableStorage::Ternary => Ok(crate::ternary_store::Store::open(source, table)?
            .classifier()
            .len()),
        TableStorage::Array => {
            let mut used = 0;
            for key in keys(&map)? {
                let written = map
                    .read(&key)?
                    .iter()
                    .any(|value| value.iter().any(|b| *b != 0));
                used += usize::from(written);
            }
            Ok(used)
        }
        _ => Ok(keys(&map)?.len()),
    }
}

/// A write error in table terms: a full map says the table is full.
pub(crate) fn in_table_terms(table: &Table, error: RuntimeError) -> RuntimeError {
    match error {
        RuntimeError::Os { errno, .. } if errno == E2BIG || errno == ENOSPC => RuntimeError::Value(
            format!("table `{}` is full ({} entries)", table.name, table.size),
        ),
        RuntimeError::KeyNotFound { .. } => {
            RuntimeError::Value(format!("table `{}` has no entry with this key", table.name))
        }
        other => other,
    }
}
