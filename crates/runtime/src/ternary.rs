//! The control plane of ternary tables (grouped tuple space, laid out as
//! `p4bpf_layout::TernaryLayout` says): which group and bucket a rule goes
//! to, and the bytes of group slots and buckets. Pure: callers read and
//! write the maps ([`crate::table`] one entry at a time, [`Batch`] for
//! filling a table at once).
//!
//! Placement: a rule joins the first group whose mask it covers (the group
//! mask has no bit the rule's mask lacks) and whose bucket for the rule
//! has room. Otherwise it opens a group: with its mask relaxed to each
//! field's leading ones rounded down to whole bytes (so masks that differ
//! only in low bits share a group), or, when a group with that mask
//! exists and is full there, with its own mask. Buckets keep rules sorted
//! by priority, best first; among equal priorities the older rule first.

use crate::entry::EncodedEntry;
use crate::error::{Result, RuntimeError};
use crate::value;
use p4bpf_layout::{ByteOrder, Table, TernaryLayout};
use std::collections::BTreeMap;

/// One rule as the bucket stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    value: Vec<u8>,
    mask: Vec<u8>,
    /// The table's value struct (action, priority, parameters).
    action: Vec<u8>,
}

/// Where a rule went: the bucket to write, and the group to open first
/// if the rule needed a new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub bucket_key: Vec<u8>,
    pub bucket: Vec<u8>,
    /// (slot, group value) of a group this rule opens.
    pub new_group: Option<(u32, Vec<u8>)>,
}

fn bad(table: &Table, why: &str) -> RuntimeError {
    RuntimeError::Value(format!("table `{}`: {why}", table.name))
}

fn layout(table: &Table) -> Result<&TernaryLayout> {
    table
        .ternary
        .as_ref()
        .ok_or_else(|| bad(table, "ternary table without its layout"))
}

/// Whether every bit of `group` is also in `mask`.
fn covers(group: &[u8], mask: &[u8]) -> bool {
    group.len() == mask.len() && group.iter().zip(mask).all(|(g, m)| g & !m == 0)
}

/// `mask` with each field cut to its leading ones, rounded down to bytes.
fn relax(table: &Table, mask: &[u8]) -> Vec<u8> {
    let mut relaxed = vec![0u8; mask.len()];
    for key in &table.keys {
        let f = &key.field;
        let (start, len) = (f.byte_offset as usize, f.byte_len as usize);
        let Some(bytes) = mask.get(start..start + len) else {
            continue;
        };
        let mut big_endian = bytes.to_vec();
        if f.byte_order == ByteOrder::Host {
            big_endian.reverse();
        }
        let spare = (len as u32 * 8).saturating_sub(f.bit_width);
        let ones = (0..f.bit_width)
            .take_while(|i| {
                let bit = spare + i;
                big_endian
                    .get((bit / 8) as usize)
                    .is_some_and(|b| b & (0x80 >> (bit % 8)) != 0)
            })
            .count() as u32;
        let mut kept = value::prefix_mask(ones / 8 * 8, f.bit_width);
        if f.byte_order == ByteOrder::Host {
            kept.reverse();
        }
        if let Some(slot) = relaxed.get_mut(start..start + kept.len()) {
            slot.copy_from_slice(&kept);
        }
    }
    relaxed
}

/// `size` bytes: `word` at 0 and `body` at `offset`.
fn with_word(size: u32, word: u32, offset: u32, body: &[u8]) -> Vec<u8> {
    let mut bytes = word.to_ne_bytes().to_vec();
    bytes.resize(offset as usize, 0);
    bytes.extend_from_slice(body);
    bytes.resize((size as usize).max(bytes.len()), 0);
    bytes
}

/// The group slot value holding `mask`.
pub fn group_value(t: &TernaryLayout, mask: &[u8]) -> Vec<u8> {
    with_word(t.group_value_size, 1, t.group_mask_offset, mask)
}

/// The mask of a used group slot value, `None` for an unused one.
pub fn group_mask(t: &TernaryLayout, slot_value: &[u8], key_size: usize) -> Option<Vec<u8>> {
    let used = slot_value.get(..4).is_some_and(|w| w != [0, 0, 0, 0]);
    let start = t.group_mask_offset as usize;
    used.then(|| slot_value.get(start..start + key_size).map(<[u8]>::to_vec))
        .flatten()
}

fn bucket_key(t: &TernaryLayout, group: u32, value: &[u8], mask: &[u8]) -> Vec<u8> {
    with_word(
        t.bucket_key_size,
        group,
        t.bucket_key_offset,
        &value::and(value, mask),
    )
}

fn decode(t: &TernaryLayout, bucket: &[u8], key_size: usize) -> Vec<Rule> {
    let count = bucket
        .get(..4)
        .and_then(|w| w.try_into().ok())
        .map(u32::from_ne_bytes)
        .unwrap_or(0)
        .min(t.bucket_rules);
    let value_size = (t.rule_size - t.rule_value_offset) as usize;
    (0..count)
        .filter_map(|i| {
            let at = (t.rules_offset + i * t.rule_size) as usize;
            let part = |offset: u32, len: usize| {
                let from = at + offset as usize;
                bucket.get(from..from + len).map(<[u8]>::to_vec)
            };
            Some(Rule {
                value: part(0, key_size)?,
                mask: part(t.rule_mask_offset, key_size)?,
                action: part(t.rule_value_offset, value_size)?,
            })
        })
        .collect()
}

fn encode(t: &TernaryLayout, rules: &[Rule]) -> Vec<u8> {
    let mut bucket = vec![0u8; t.bucket_size as usize];
    let mut put = |at: usize, bytes: &[u8]| {
        if let Some(slot) = bucket.get_mut(at..at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
    };
    put(0, &(rules.len() as u32).to_ne_bytes());
    for (i, r) in rules.iter().enumerate() {
        let at = (t.rules_offset + i as u32 * t.rule_size) as usize;
        put(at, &r.value);
        put(at + t.rule_mask_offset as usize, &r.mask);
        put(at + t.rule_value_offset as usize, &r.action);
    }
    bucket
}

fn priority(t: &TernaryLayout, action: &[u8]) -> u32 {
    let at = t.priority_offset as usize;
    action
        .get(at..at + 4)
        .and_then(|w| w.try_into().ok())
        .map(u32::from_ne_bytes)
        .unwrap_or(0)
}

/// Where `entry` goes, given the masks of the groups in use (slot order)
/// and a way to read a bucket (`None`: no such bucket yet).
pub fn place(
    table: &Table,
    groups: &[Vec<u8>],
    entry: &EncodedEntry,
    mut read_bucket: impl FnMut(&[u8]) -> Result<Option<Vec<u8>>>,
) -> Result<Placement> {
    let t = layout(table)?;
    let mask = entry
        .mask
        .clone()
        .ok_or_else(|| bad(table, "a ternary entry without its mask"))?;
    let key_size = table.key_size as usize;
    let rule = Rule {
        value: entry.key.clone(),
        mask: mask.clone(),
        action: entry.value.clone(),
    };
    let mut chosen = None;
    for (slot, group) in groups.iter().enumerate() {
        if !covers(group, &mask) {
            continue;
        }
        let key = bucket_key(t, slot as u32, &entry.key, group);
        let rules = read_bucket(&key)?
            .map(|b| decode(t, &b, key_size))
            .unwrap_or_default();
        if rules
            .iter()
            .any(|r| r.value == rule.value && r.mask == rule.mask)
        {
            return Err(bad(table, "an entry with this key and mask already exists"));
        }
        if chosen.is_none() && rules.len() < t.bucket_rules as usize {
            chosen = Some((key, rules, None));
        }
    }
    let (key, mut rules, new_group) = match chosen {
        Some(found) => found,
        None => {
            let relaxed = relax(table, &mask);
            let group = if groups.contains(&relaxed) {
                mask.clone()
            } else {
                relaxed
            };
            let slot = groups.len() as u32;
            if groups.contains(&group) || slot >= t.max_groups {
                return Err(bad(
                    table,
                    &format!(
                        "no room for this entry: its buckets are full and the table has all {} mask groups in use",
                        t.max_groups
                    ),
                ));
            }
            let key = bucket_key(t, slot, &entry.key, &group);
            (key, vec![], Some((slot, group_value(t, &group))))
        }
    };
    let best = priority(t, &rule.action);
    let at = rules
        .iter()
        .position(|r| priority(t, &r.action) < best)
        .unwrap_or(rules.len());
    rules.insert(at, rule);
    Ok(Placement {
        bucket_key: key,
        bucket: encode(t, &rules),
        new_group,
    })
}

/// A rule's bytes: (value, mask, table value struct).
pub type RuleParts = (Vec<u8>, Vec<u8>, Vec<u8>);
/// Where a rule was found: (bucket key, bucket, index of the rule there).
pub type Found = (Vec<u8>, Vec<u8>, usize);
/// (map key, map value) pairs to write.
pub type Records = Vec<(Vec<u8>, Vec<u8>)>;

/// The rules of a bucket.
pub fn rules(table: &Table, bucket: &[u8]) -> Result<Vec<RuleParts>> {
    let t = layout(table)?;
    Ok(decode(t, bucket, table.key_size as usize)
        .into_iter()
        .map(|r| (r.value, r.mask, r.action))
        .collect())
}

/// A bucket holding `rules`, kept in priority order (best first, stable).
pub fn bucket(table: &Table, mut rules: Vec<RuleParts>) -> Result<Vec<u8>> {
    let t = layout(table)?;
    rules.sort_by_key(|(_, _, action)| std::cmp::Reverse(priority(t, action)));
    let rules: Vec<Rule> = rules
        .into_iter()
        .map(|(value, mask, action)| Rule {
            value,
            mask,
            action,
        })
        .collect();
    Ok(encode(t, &rules))
}

/// The bucket key and bucket holding the rule of `entry`'s value and mask,
/// with the rule's index there, or `None`.
pub fn find(
    table: &Table,
    groups: &[Vec<u8>],
    entry: &EncodedEntry,
    mut read_bucket: impl FnMut(&[u8]) -> Result<Option<Vec<u8>>>,
) -> Result<Option<Found>> {
    let t = layout(table)?;
    let Some(mask) = &entry.mask else {
        return Ok(None);
    };
    for (slot, group) in groups.iter().enumerate() {
        if !covers(group, mask) {
            continue;
        }
        let key = bucket_key(t, slot as u32, &entry.key, group);
        let Some(bucket) = read_bucket(&key)? else {
            continue;
        };
        let at = decode(t, &bucket, table.key_size as usize)
            .iter()
            .position(|r| r.value == entry.key && &r.mask == mask);
        if let Some(at) = at {
            return Ok(Some((key, bucket, at)));
        }
    }
    Ok(None)
}

/// A whole ternary table built in memory, for writing in one go.
#[derive(Default)]
pub struct Batch {
    groups: Vec<Vec<u8>>,
    buckets: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl Batch {
    pub fn add(&mut self, table: &Table, entry: &EncodedEntry) -> Result<()> {
        let placed = place(table, &self.groups, entry, |key| {
            Ok(self.buckets.get(key).cloned())
        })?;
        if let Some((_, value)) = &placed.new_group {
            let t = layout(table)?;
            self.groups
                .extend(group_mask(t, value, table.key_size as usize));
        }
        self.buckets.insert(placed.bucket_key, placed.bucket);
        Ok(())
    }

    /// (slot key, group value) of every group, then (key, bucket) pairs.
    pub fn into_maps(self, table: &Table) -> Result<(Records, Records)> {
        let t = layout(table)?;
        let groups = self
            .groups
            .iter()
            .enumerate()
            .map(|(slot, mask)| ((slot as u32).to_ne_bytes().to_vec(), group_value(t, mask)))
            .collect();
        Ok((groups, self.buckets.into_iter().collect()))
    }
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;
    use p4bpf_layout::{FieldLayout, KeyField, MatchKind, TableStorage};

    fn table() -> Table {
        Table {
            name: "t".into(),
            map: "t".into(),
            storage: TableStorage::Ternary,
            size: 64,
            keys: vec![KeyField {
                field: FieldLayout {
                    name: "k".into(),
                    bit_width: 32,
                    byte_offset: 0,
                    byte_len: 4,
                    byte_order: ByteOrder::Host,
                },
                match_kind: MatchKind::Ternary,
            }],
            key_size: 4,
            value_size: 8,
            actions: vec![],
            default_map: None,
            default_slot: 0,
            ternary: Some(TernaryLayout {
                groups_map: "g".into(),
                max_groups: 2,
                group_mask_offset: 4,
                group_value_size: 8,
                bucket_key_offset: 4,
                bucket_key_size: 8,
                bucket_size: 4 + 2 * 16,
                bucket_rules: 2,
                rules_offset: 4,
                rule_size: 16,
                rule_mask_offset: 4,
                rule_value_offset: 8,
                priority_offset: 4,
            }),
        }
    }

    fn entry(value: u32, mask: u32, priority: u32) -> EncodedEntry {
        let mut v = 1u32.to_ne_bytes().to_vec();
        v.extend_from_slice(&priority.to_ne_bytes());
        EncodedEntry {
            key: (value & mask).to_le_bytes().to_vec(),
            value: v,
            mask: Some(mask.to_le_bytes().to_vec()),
        }
    }

    #[test]
    fn masks_differing_in_low_bits_share_one_group_and_rules_sort_by_priority() {
        let t = table();
        let mut b = Batch::default();
        b.add(&t, &entry(0x0a000001, 0xffffff0f, 5)).unwrap();
        b.add(&t, &entry(0x0a000002, 0xffffff03, 9)).unwrap();
        assert_eq!(b.groups, vec![0xffffff00u32.to_le_bytes().to_vec()]);
        let rules = decode(
            t.ternary.as_ref().unwrap(),
            b.buckets.values().next().unwrap(),
            4,
        );
        let priorities: Vec<u32> = rules
            .iter()
            .map(|r| priority(t.ternary.as_ref().unwrap(), &r.action))
            .collect();
        assert_eq!(priorities, vec![9, 5]);
    }

    #[test]
    fn a_full_bucket_opens_a_group_and_then_the_table_is_full() {
        let t = table();
        let mut b = Batch::default();
        for (i, m) in [0xffffff01u32, 0xffffff03].into_iter().enumerate() {
            b.add(&t, &entry(0x0a000001, m, i as u32)).unwrap();
        }
        b.add(&t, &entry(0x0a000001, 0xffffff07, 7)).unwrap();
        assert_eq!(b.groups.len(), 2);
        b.add(&t, &entry(0x0a000001, 0xffffff0f, 8)).unwrap();
        let full = b.add(&t, &entry(0x0a000001, 0xffffff1f, 8));
        assert!(full.is_err_and(|e| e.to_string().contains("no room")));
    }

    #[test]
    fn the_same_key_and_mask_twice_is_an_error() {
        let t = table();
        let mut b = Batch::default();
        b.add(&t, &entry(1, 0xff, 1)).unwrap();
        assert!(b.add(&t, &entry(1, 0xff, 2)).is_err());
    }
}
