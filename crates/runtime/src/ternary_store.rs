//! A ternary table's [`Classifier`] bound to its maps: read back from the
//! filters and the buckets (not the group lists: a store opened on maps
//! writes a list whenever a change adds to it), and changed through them, each change's
//! writes in the order the classifier gives (make before break). A
//! long-lived [`Store`] (a control-plane server, a benchmark) reads the
//! maps once and then only writes; a one-shot command opens one per call.

use crate::control::{delete_key, keys};
use crate::entry::EncodedEntry;
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::ternary::{Classifier, MapWrite, Rule};
use p4bpf_layout::Table;
use std::collections::{BTreeMap, BTreeSet};

/// A groups map key (a u32 partition) as its bytes.
fn key_word(key: &[u8]) -> [u8; 4] {
    key.get(..4)
        .and_then(|w| w.try_into().ok())
        .unwrap_or_default()
}

/// A rule with its cells map key and value.
pub type RuleCell<'a> = (&'a Rule, Vec<u8>, Vec<u8>);

pub struct Store {
    table: Table,
    groups: Map,
    filters: Map,
    buckets: Map,
    /// The rules' values with their direct cells, if the table has any.
    cells: Option<Map>,
    classifier: Classifier,
}

fn read_optional(map: &Map, key: &[u8]) -> Result<Option<Vec<u8>>> {
    match map.read(key) {
        Ok(values) => Ok(values.into_iter().next()),
        Err(RuntimeError::KeyNotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

impl Store {
    /// The classifier `table`'s maps in `source` hold.
    pub fn open(source: &impl MapSource, table: &Table) -> Result<Store> {
        Store::open_reading(source, table, true)
    }

    /// The classifier without its rules' whole values: each rule keeps
    /// the head its bucket holds (priority and slot), which is all a
    /// change writes, and the cells map is not read (a read per rule).
    /// For inserts and lookups by key, not for reading rules back.
    pub fn open_for_change(source: &impl MapSource, table: &Table) -> Result<Store> {
        Store::open_reading(source, table, false)
    }

    fn open_reading(source: &impl MapSource, table: &Table, values: bool) -> Result<Store> {
        let layout = table.ternary.as_ref().ok_or_else(|| {
            RuntimeError::Value(format!("table `{}` is not a ternary table", table.name))
        })?;
        let groups = source.map(&layout.groups_map)?;
        let filters = source.map(&layout.filters_map)?;
        let buckets = source.map(&table.map)?;
        let mut pairs = vec![];
        for key in keys(&buckets)? {
            // Gone between the walk and the read: someone else's delete.
            if let Some(bucket) = read_optional(&buckets, &key)? {
                pairs.push((key, bucket));
            }
        }
        let filter = |id: u32| -> Result<Vec<u8>> {
            let value = read_optional(&filters, &id.to_ne_bytes())?;
            value.ok_or_else(|| {
                RuntimeError::Value(format!("table `{}`: no filter of group {id}", table.name))
            })
        };
        let cells = match &layout.cells {
            Some(c) => Some(source.map(&c.map)?),
            None => None,
        };
        let cell = |slot: u32| -> Result<Option<Vec<u8>>> {
            if !values {
                return Ok(None);
            }
            let value = match &cells {
                Some(map) => read_optional(map, &slot.to_ne_bytes())?,
                None => None,
            };
            value.map(Some).ok_or_else(|| {
                RuntimeError::Value(format!("table `{}`: no cell in slot {slot}", table.name))
            })
        };
        let classifier = Classifier::from_maps(table, filter, cell, pairs)?;
        Ok(Store {
            table: table.clone(),
            groups,
            filters,
            buckets,
            cells,
            classifier,
        })
    }

    /// The cells map's key and value (the rule's whole value, its direct
    /// cells included) of the rule `entry` names.
    pub fn cell(&self, entry: &EncodedEntry) -> Result<(Vec<u8>, Vec<u8>)> {
        let rule = (self.classifier.find(&self.table, entry)).ok_or_else(|| {
            RuntimeError::Value(format!(
                "table `{}` has no entry with this key",
                self.table.name
            ))
        })?;
        self.cell_of(rule)
    }

    /// Every rule with its cells map key and value.
    pub fn cells(&self) -> Result<Vec<RuleCell<'_>>> {
        (self.classifier.rules())
            .map(|rule| {
                let (key, value) = self.cell_of(rule)?;
                Ok((rule, key, value))
            })
            .collect()
    }

    fn cell_of(&self, rule: &Rule) -> Result<(Vec<u8>, Vec<u8>)> {
        let (Some(map), Some(slot)) = (&self.cells, self.classifier.slot(&self.table, rule)) else {
            return Err(RuntimeError::Value(format!(
                "table `{}` has no direct counters or meters",
                self.table.name
            )));
        };
        let key = slot.to_ne_bytes().to_vec();
        let value = read_optional(map, &key)?.unwrap_or_default();
        Ok((key, value))
    }

    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    pub fn insert(&mut self, entry: &EncodedEntry) -> Result<()> {
        let writes = self.classifier.insert(&self.table, entry)?;
        self.apply(writes)
    }

    pub fn modify(&mut self, entry: &EncodedEntry) -> Result<()> {
        let writes = self.classifier.modify(&self.table, entry)?;
        self.apply(writes)
    }

    pub fn remove(&mut self, entry: &EncodedEntry) -> Result<()> {
        let writes = self.classifier.remove(&self.table, entry)?;
        self.apply(writes)
    }

    /// Insert every entry of `entries`, or none when one of them cannot
    /// go in. The filters and the lists that hold the new buckets and
    /// groups go first (each written once, as it ends), then every bucket
    /// that changed (each holds its old rules and its new ones).
    pub fn insert_all(&mut self, entries: &[EncodedEntry]) -> Result<()> {
        let mut next = self.classifier.clone();
        let mut touched = BTreeSet::new();
        let mut filters = BTreeMap::new();
        let mut lists = BTreeSet::new();
        let mut cells = vec![];
        for entry in entries {
            for write in next.insert(&self.table, entry)? {
                match write {
                    cell @ MapWrite::Cell { .. } => cells.push(cell),
                    MapWrite::Bucket(key, _) => {
                        touched.insert(key);
                    }
                    MapWrite::Filter(id, filter) => {
                        filters.insert(id, filter);
                    }
                    MapWrite::Groups(p, _) => {
                        lists.insert(p);
                    }
                }
            }
        }
        let mut writes = cells;
        writes.extend((filters.into_iter()).map(|(id, filter)| MapWrite::Filter(id, filter)));
        for p in lists {
            writes.push(MapWrite::Groups(p, next.list(&self.table, p)?));
        }
        for key in touched {
            let bucket = next.bucket(&self.table, &key)?;
            writes.push(MapWrite::Bucket(key, bucket));
        }
        self.apply(writes)?;
        self.classifier = next;
        Ok(())
    }

    /// Remove every rule and group; returns how many rules there were.
    pub fn clear(&mut self) -> Result<usize> {
        let removed = self.classifier.len();
        let mut empty = Classifier::default();
        for key in keys(&self.groups)? {
            let p = u32::from_ne_bytes(key_word(&key));
            self.apply(vec![MapWrite::Groups(p, empty.list(&self.table, p)?)])?;
        }
        for (key, _) in self.classifier.buckets(&self.table)? {
            self.apply(vec![MapWrite::Bucket(key, None)])?;
        }
        self.classifier = empty;
        Ok(removed)
    }

    fn apply(&self, writes: Vec<MapWrite>) -> Result<()> {
        for write in writes {
            match write {
                MapWrite::Groups(p, list) => {
                    self.groups.write(&p.to_ne_bytes(), &list, Write::Replace)?
                }
                MapWrite::Filter(id, filter) => {
                    self.filters
                        .write(&id.to_ne_bytes(), &filter, Write::Replace)?
                }
                MapWrite::Bucket(key, Some(bucket)) => {
                    self.buckets.write(&key, &bucket, Write::Replace)?
                }
                MapWrite::Bucket(key, None) => match delete_key(&self.buckets, &key) {
                    Ok(()) | Err(RuntimeError::KeyNotFound { .. }) => {}
                    Err(other) => return Err(other),
                },
                MapWrite::Cell { slot, value, keep } => self.write_cell(slot, value, keep)?,
            }
        }
        Ok(())
    }

    /// Write a rule's value into `slot`, with the direct cells slot
    /// `keep` holds (a modified rule keeps its counts and meter state).
    fn write_cell(&self, slot: u32, mut value: Vec<u8>, keep: Option<u32>) -> Result<()> {
        let Some(map) = &self.cells else {
            return Ok(());
        };
        if let Some(old) = keep.and_then(|k| read_optional(map, &k.to_ne_bytes()).transpose()) {
            let old = old?;
            let from = cells_start(&self.table);
            if let (Some(new), Some(kept)) = (value.get_mut(from..), old.get(from..)) {
                if new.len() == kept.len() {
                    new.copy_from_slice(kept);
                }
            }
        }
        map.write(&slot.to_ne_bytes(), &value, Write::Replace)
    }
}

/// Where a value's direct cells may start: after its head and every
/// action's parameters.
fn cells_start(table: &Table) -> usize {
    let head = (table.ternary.as_ref())
        .and_then(|t| t.cells.as_ref())
        .map_or(0, |c| c.head_size as usize);
    (table.actions.iter())
        .flat_map(|a| &a.params)
        .map(|p| (p.byte_offset + p.byte_len) as usize)
        .fold(head, usize::max)
}
