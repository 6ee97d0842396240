//! The entries of one hash or lpm-trie table encoded back to back, as the
//! map stores them (one key buffer, one value buffer: no allocation per
//! entry), and their insertion, all or nothing.
//!
//! Which keys are taken decides how they go in. While the table is small
//! next to the batch, a walk of it says: the batch is checked against the
//! walk and itself, then written with `BPF_MAP_UPDATE_BATCH` in chunks,
//! half of them from a second thread.
//! Otherwise each entry is inserted with `BPF_NOEXIST`, the kernel's own
//! exact-key check (a lookup would not do for an lpm trie: it finds the
//! longest matching prefix, not the key), and the first refusal deletes
//! what the batch wrote before it. Either way the batch's keys did not
//! exist before, so deleting them restores the table.

use super::{delete_key, in_table_terms, keys_up_to};
use crate::bench::fill::{self, Stopped};
use crate::entry::EncodedEntry;
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use p4bpf_layout::{Table, TableStorage};
use std::collections::HashSet;

const EEXIST: i32 = 17;
/// A walk of the table (a system call per key) is tried up to a
/// sixteenth of the batch's size: it lets an empty or small table take
/// the batch in a few calls, and wastes little when the table is larger.
const WALK_SHARE: usize = 16;
/// Half a batch this long or longer is worth a second writing thread.
const SPLIT_FROM: usize = 4096;
const ENOMEM: i32 = 12;
/// Records a batch update call takes, and the piece retried on `ENOMEM`.
const PIECE: usize = 4096;
/// Tries at a piece the kernel found no memory for. The lpm trie allocates
/// nodes without waiting (its cache refills with `GFP_NOWAIT`), so under
/// memory pressure an insert fails until reclaim catches up (seen under
/// eight parallel builds). Repeating is harmless: a batch update replaces
/// what the failed call already wrote with the same records.
const NO_MEMORY_TRIES: u32 = 12;

/// Entries of one table as map records.
#[derive(Clone, Debug, Default)]
pub(super) struct Packed {
    key_size: usize,
    value_size: usize,
    keys: Vec<u8>,
    values: Vec<u8>,
}

/// Why an insertion stopped: the entry at fault, if one was.
pub(super) type Refusal = (Option<usize>, RuntimeError);

impl Packed {
    /// Room for `table`'s records, if its storage is a hash or lpm trie.
    pub(super) fn for_table(table: &Table) -> Option<Packed> {
        let prefix_word = match table.storage {
            TableStorage::Hash => 0,
            TableStorage::LpmTrie => 4,
            _ => return None,
        };
        Some(Packed {
            key_size: table.key_size as usize + prefix_word,
            value_size: table.value_size as usize,
            keys: Vec::new(),
            values: Vec::new(),
        })
    }

    pub(super) fn push(&mut self, table: &Table, entry: &EncodedEntry) -> Result<()> {
        if entry.key.len() != self.key_size || entry.value.len() != self.value_size {
            return Err(RuntimeError::BadObject(format!(
                "table `{}`: an entry encoded to {}+{} bytes, the map holds {}+{}",
                table.name,
                entry.key.len(),
                entry.value.len(),
                self.key_size,
                self.value_size
            )));
        }
        self.keys.extend_from_slice(&entry.key);
        self.values.extend_from_slice(&entry.value);
        Ok(())
    }

    /// Add `later`'s records after these (both of `table`).
    pub(super) fn append(&mut self, table: &Table, later: Packed) -> Result<()> {
        if (later.key_size, later.value_size) != (self.key_size, self.value_size) {
            return Err(RuntimeError::BadObject(format!(
                "table `{}`: records of two sizes",
                table.name
            )));
        }
        self.keys.extend_from_slice(&later.keys);
        self.values.extend_from_slice(&later.values);
        Ok(())
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len() / self.key_size.max(1)
    }

    fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.keys.chunks_exact(self.key_size.max(1))
    }

    fn values(&self) -> impl Iterator<Item = &[u8]> {
        self.values.chunks_exact(self.value_size.max(1))
    }

    /// Insert every record into `map` (the table's), none of whose keys
    /// may be there already or twice in the batch.
    pub(super) fn insert(&self, map: &Map, table: &Table) -> std::result::Result<(), Refusal> {
        if table.storage == TableStorage::LpmTrie {
            if let Some((sorted, order)) = self.in_address_order() {
                let placed = sorted.insert_as_given(map, table);
                return placed.map_err(|(at, e)| (at.and_then(|i| order.get(i).copied()), e));
            }
        }
        self.insert_as_given(map, table)
    }

    /// The records sorted by address, then prefix length, with each one's
    /// place in `self`; `None` when already in that order. The kernel's
    /// trie walks from its root on every insert: in address order the
    /// walk stays on the nodes the last insert touched, in cache (100K
    /// /24s: 90 ms of kernel time sorted, 166 ms shuffled, measured by
    /// bench/p4runtime/lpm_floor.c). The sort is stable, so of two equal
    /// keys the later one is still the one refused.
    fn in_address_order(&self) -> Option<(Packed, Vec<usize>)> {
        if self.keys().is_sorted_by_key(address_order) {
            return None;
        }
        let keys: Vec<&[u8]> = self.keys().collect();
        let mut order: Vec<usize> = (0..keys.len()).collect();
        // Unstable with the place as the last key: stable, and quicker.
        order.sort_unstable_by_key(|&i| (keys.get(i).copied().map(address_order), i));
        let values: Vec<&[u8]> = self.values().collect();
        let mut sorted = Packed {
            keys: Vec::with_capacity(self.keys.len()),
            values: Vec::with_capacity(self.values.len()),
            ..*self
        };
        for &i in &order {
            sorted
                .keys
                .extend_from_slice(keys.get(i).copied().unwrap_or_default());
            sorted
                .values
                .extend_from_slice(values.get(i).copied().unwrap_or_default());
        }
        Some((sorted, order))
    }

    fn insert_as_given(&self, map: &Map, table: &Table) -> std::result::Result<(), Refusal> {
        let done = match map.fd() {
            Ok(fd) if !map.per_cpu() => self.insert_kernel(map, fd, table),
            _ => self.insert_through(map, table),
        };
        // The batch went in by system calls of its own.
        map.renew_caches().map_err(|e| (None, e))?;
        done
    }

    fn insert_kernel(&self, map: &Map, fd: i32, table: &Table) -> std::result::Result<(), Refusal> {
        let Some(walked) = keys_up_to(map, self.len() / WALK_SHARE).map_err(|e| (None, e))? else {
            return self.insert_each(map, fd, table);
        };
        room(table, walked.len(), self.len())?;
        if let Some((index, twice)) = self.first_repeat(table, &walked) {
            return Err((Some(index), duplicate(table, twice)));
        }
        self.write_on_two_threads(fd).map_err(|error| {
            self.remove(map, self.len());
            (None, in_table_terms(table, error))
        })
    }

    /// The first record whose key is in `walked` or earlier in the batch,
    /// and whether it was the batch (not the table) that had it. A batch
    /// in order has its repeats side by side, and only the walk (at most
    /// a sixteenth of the batch) goes into a set.
    fn first_repeat(&self, table: &Table, walked: &[Vec<u8>]) -> Option<(usize, bool)> {
        let in_order = self.keys().is_sorted()
            || (table.storage == TableStorage::LpmTrie
                && self.keys().is_sorted_by_key(address_order));
        if !in_order {
            let mut taken: HashSet<&[u8]> = walked.iter().map(Vec::as_slice).collect();
            taken.reserve(self.len());
            let index = self.keys().position(|key| !taken.insert(key))?;
            let key = self.keys().nth(index).unwrap_or_default();
            return Some((index, !walked.iter().any(|k| k.as_slice() == key)));
        }
        let taken: HashSet<&[u8]> = walked.iter().map(Vec::as_slice).collect();
        let mut previous: Option<&[u8]> = None;
        for (index, key) in self.keys().enumerate() {
            if taken.contains(key) {
                return Some((index, false));
            }
            if previous == Some(key) {
                return Some((index, true));
            }
            previous = Some(key);
        }
        None
    }

    /// `BPF_MAP_UPDATE_BATCH` of every record, the second half from another
    /// thread. The lpm trie allocates its nodes outside its lock, so two
    /// cores fill it in about 60% of one core's time (100K /24s: 90 ms on
    /// one, 54-59 ms on two, bench/p4runtime/lpm_floor.c); a hash map
    /// locks per bucket.
    fn write_on_two_threads(&self, fd: i32) -> Result<()> {
        let half = self.len() / 2;
        let (key_size, value_size) = (self.key_size, self.value_size);
        let split = self
            .keys
            .split_at_checked(half * key_size)
            .zip(self.values.split_at_checked(half * value_size));
        let Some(((keys, later_keys), (values, later_values))) =
            split.filter(|_| half >= SPLIT_FROM)
        else {
            return self.write_records(fd, &self.keys, &self.values);
        };
        std::thread::scope(|scope| {
            let later = std::thread::Builder::new()
                .spawn_scoped(scope, || self.write_records(fd, later_keys, later_values));
            let written = self.write_records(fd, keys, values);
            let later_written = match later {
                Ok(thread) => thread.join().unwrap_or_else(|_| {
                    Err(RuntimeError::Value("a map-writing thread stopped".into()))
                }),
                // No second thread: this one writes the second half too.
                Err(_) => self.write_records(fd, later_keys, later_values),
            };
            written.and(later_written)
        })
    }

    /// Batch updates of the records in `keys` and `values` (runs of this
    /// batch's records), a piece at a time, a piece refused for want of
    /// memory tried again after a pause that doubles.
    fn write_records(&self, fd: i32, keys: &[u8], values: &[u8]) -> Result<()> {
        let (key_size, value_size) = (self.key_size, self.value_size);
        let pieces = keys
            .chunks(key_size.max(1) * PIECE)
            .zip(values.chunks(value_size.max(1) * PIECE));
        for (keys, values) in pieces {
            let mut tries = 1;
            loop {
                match fill::write_all(fd, keys, key_size, values, value_size) {
                    Err(RuntimeError::Os { errno: ENOMEM, .. }) if tries < NO_MEMORY_TRIES => {
                        std::thread::sleep(std::time::Duration::from_millis(1 << tries));
                        tries += 1;
                    }
                    written => break written?,
                }
            }
        }
        Ok(())
    }

    /// One `BPF_NOEXIST` insert per record; a refusal deletes the records
    /// before it.
    fn insert_each(&self, map: &Map, fd: i32, table: &Table) -> std::result::Result<(), Refusal> {
        let stopped =
            fill::insert_each(fd, &self.keys, self.key_size, &self.values, self.value_size);
        let Err(Stopped { at, errno }) = stopped else {
            return Ok(());
        };
        self.remove(map, at);
        if errno == EEXIST {
            let key = self.keys().nth(at).unwrap_or_default();
            let twice = self.keys().take(at).any(|k| k == key);
            return Err((Some(at), duplicate(table, twice)));
        }
        let error = RuntimeError::os(format!("writing map `{}`", map.name()), errno);
        Err((None, in_table_terms(table, error)))
    }

    /// Through the map's own insert (a user-space or per-CPU map).
    fn insert_through(&self, map: &Map, table: &Table) -> std::result::Result<(), Refusal> {
        for (index, (key, value)) in self.keys().zip(self.values()).enumerate() {
            if let Err(error) = map.write(key, value, Write::Insert) {
                self.remove(map, index);
                return Err((Some(index), in_table_terms(table, error)));
            }
        }
        Ok(())
    }

    /// Best effort: delete the first `count` records' keys.
    pub(super) fn remove(&self, map: &Map, count: usize) {
        for key in self.keys().take(count) {
            let _ = delete_key(map, key);
        }
    }
}

/// An lpm key (prefix length in host order, then the address) as it
/// sorts in address order.
fn address_order(key: &[u8]) -> (Option<&[u8]>, u32) {
    let prefix_bits = key.get(..4).and_then(|word| word.try_into().ok());
    (key.get(4..), prefix_bits.map_or(0, u32::from_ne_bytes))
}

fn duplicate(table: &Table, twice: bool) -> RuntimeError {
    let why = if twice {
        "gets this key twice in the batch"
    } else {
        "already has an entry with this key"
    };
    RuntimeError::Value(format!("table `{}` {why}", table.name))
}

pub(super) fn room(table: &Table, present: usize, more: usize) -> std::result::Result<(), Refusal> {
    if present + more > table.size as usize {
        let error = RuntimeError::Value(format!(
            "table `{}` is full: it has {present} of {} entries, {more} more do not fit",
            table.name, table.size
        ));
        return Err((None, error));
    }
    Ok(())
}
