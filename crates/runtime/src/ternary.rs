//! The control plane of ternary, range and optional tables (grouped tuple
//! space, laid out as `p4bpf_layout::TernaryLayout` says): an in-memory
//! [`Classifier`] that decides where each rule goes and which map writes
//! an insert, modify or delete makes, in an order that never gives a
//! lookup under traffic a wrong answer. Pure: `crate::ternary_store` reads
//! and writes the maps.
//!
//! Placement: a rule's *shape* is its ternary mask, with each range field
//! widened to the bits its bounds share (a `lo..hi` range lies inside that
//! prefix). The rule joins the first group with room in its bucket among
//! those whose mask is, coarsest first: its shape's address-wide fields cut
//! to their first two bytes or none, then to nesting steps (whole bytes, a
//! host joining its /24 and a /8 the wildcards: longer masks live in a
//! group of a shorter one, checked in the bucket), then to whole bytes
//! (masks differing in low bits, as ACL masks do, share one; narrower
//! fields are left out), then every field so cut, then its shape itself.
//! Else it opens a group of the first of these masks no group has, or a
//! second of its shape.
//! Groups may repeat a mask, so every rule fits until the table holds
//! `size` rules (or the list its `max_groups` groups). Buckets keep rules
//! best priority first; among equal priorities the older rule first.
//!
//! Partitions: a key's partition is the top bits of a cut or two of its
//! fields (`TernaryLayout::partition`), and each partition has its own
//! group list naming only the groups with a rule that may match there,
//! each with the best priority among those rules: fewer groups to probe,
//! and a sharper stop. A rule is counted in every partition it overlaps,
//! except a rule overlapping all of them (wild in the cut bits): that one
//! is counted in the wild list, which every lookup walks too, so a new
//! wild group writes one list, not one per partition. A list is a u32
//! count and (id, priority) pairs; the group's mask is in its filter.
//!
//! Make before break: a group list that names a group or a priority too
//! many only costs a probe, one that misses a rule gives a wrong answer. So
//! a list is written before a bucket when the change adds a group there or
//! raises its best priority there, and otherwise not at all: a lowered
//! priority or a closed group stays in the lists that name it until they
//! are next written (lazily compacted). A closed group's id, taken again
//! by a new group, gets its new mask in its filter before any bucket.

use crate::entry::EncodedEntry;
use crate::error::{Result, RuntimeError};
use crate::map::u32_at;
use crate::value;
use p4bpf_layout::{ByteOrder, FieldLayout, KeyField, MatchKind, Table, TernaryLayout};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One rule as a bucket stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The key struct, masked (zero in range fields).
    pub value: Vec<u8>,
    pub mask: Vec<u8>,
    /// (lo, hi) key structs, for a table with range keys.
    pub bounds: Option<(Vec<u8>, Vec<u8>)>,
    /// The table's value struct (action, priority, parameters).
    pub action: Vec<u8>,
}

/// What a rule matches: its key without the action. A rule is its match
/// and its priority (as in P4Runtime: two rules may match alike at two
/// priorities).
type MatchKey = (Vec<u8>, Vec<u8>, Option<(Vec<u8>, Vec<u8>)>);

impl Rule {
    fn of(entry: &EncodedEntry) -> Option<Rule> {
        Some(Rule {
            value: entry.key.clone(),
            mask: entry.mask.clone()?,
            bounds: entry.bounds.clone(),
            action: entry.value.clone(),
        })
    }

    /// Whether this rule, of priority `mine`, is the rule `key` at `priority`.
    fn is(&self, key: &MatchKey, mine: u32, priority: u32) -> bool {
        mine == priority && self.value == key.0 && self.mask == key.1 && self.bounds == key.2
    }

    fn key(&self) -> MatchKey {
        (self.value.clone(), self.mask.clone(), self.bounds.clone())
    }
}

/// A map write, in the order the writes must happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapWrite {
    /// Replace the group list of a partition.
    Groups(u32, Vec<u8>),
    /// Replace a bucket, or delete it (`None`).
    Bucket(Vec<u8>, Option<Vec<u8>>),
    /// Replace the filter of a group (its id, the filter's bytes).
    Filter(u32, Vec<u8>),
    /// Write a rule's whole value into its slot of the cells map; with
    /// `keep`, the direct cells (the bytes after the parameters) are
    /// those slot `keep` holds now.
    Cell {
        slot: u32,
        value: Vec<u8>,
        keep: Option<u32>,
    },
}

/// The filter bit of a bucket key in a filter of `words` u32 words (a
/// power of two): its u32 words (native order) hashed from 0 as
/// `h = (h ^ word) * 0x9e3779b1`, then the top log2(32 * words) bits of
/// `h`. The data path computes the same on its probe and skips the bucket
/// when the bit is clear.
fn filter_bit(bucket_key: &[u8], words: u32) -> u32 {
    let hash = bucket_key.chunks(4).fold(0u32, |h, word| {
        let mut w = [0u8; 4];
        w[..word.len()].copy_from_slice(word);
        (h ^ u32::from_ne_bytes(w)).wrapping_mul(0x9e37_79b1)
    });
    let bits = (32 * words.max(1)).next_power_of_two().trailing_zeros();
    hash.checked_shr(32 - bits).unwrap_or(0)
}

#[derive(Clone, Debug)]
struct Group {
    id: u32,
    mask: Vec<u8>,
    /// Priority → how many of the group's rules have it.
    priorities: BTreeMap<u32, usize>,
    /// The same count per list (partition or wild) the rules are in.
    by_partition: HashMap<u32, BTreeMap<u32, usize>>,
    /// A bit per bucket key hash (see [`filter_bit`]) of its buckets.
    filter: Vec<u32>,
}

impl Group {
    /// The best priority of its rules overlapping `partition`, if any.
    fn best_in(&self, partition: u32) -> Option<u32> {
        let counts = self.by_partition.get(&partition)?;
        counts.keys().next_back().copied()
    }
}

/// The whole state of one ternary table, as the maps hold it.
#[derive(Clone, Debug, Default)]
pub struct Classifier {
    groups: HashMap<u32, Group>,
    /// Mask → ids of the groups with it, oldest first.
    by_mask: HashMap<Vec<u8>, Vec<u32>>,
    buckets: HashMap<Vec<u8>, Vec<Rule>>,
    /// Match → (priority, bucket key) of each rule with it.
    index: HashMap<MatchKey, Vec<(u32, Vec<u8>)>>,
    /// List key → (group id → the priority the list in the map gives it):
    /// at least the group's best there while it has rules there; ids of
    /// closed groups stay until the list is next written.
    listed: HashMap<u32, HashMap<u32, u32>>,
    rules: usize,
    next_id: u32,
    /// Slots of the cells map (tables with direct cells) rules hold.
    slots: BTreeSet<u32>,
    next_slot: u32,
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

fn put(bytes: &mut [u8], at: usize, part: &[u8]) {
    if let Some(slot) = bytes.get_mut(at..at + part.len()) {
        slot.copy_from_slice(part);
    }
}

fn priority(t: &TernaryLayout, action: &[u8]) -> u32 {
    u32_at(action, t.priority_offset as usize)
}

/// A field's bytes as a big-endian number's bytes.
fn field_be(bytes: &[u8], f: &FieldLayout) -> Vec<u8> {
    let start = f.byte_offset as usize;
    let mut part = bytes
        .get(start..start + f.byte_len as usize)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    if f.byte_order == ByteOrder::Host && cfg!(target_endian = "little") {
        part.reverse();
    }
    part
}

fn put_field_be(bytes: &mut [u8], f: &FieldLayout, big_endian: &[u8]) {
    let mut part = big_endian.to_vec();
    if f.byte_order == ByteOrder::Host && cfg!(target_endian = "little") {
        part.reverse();
    }
    put(bytes, f.byte_offset as usize, &part);
}

/// Leading bits (of `width`) where `a` and `b`, big-endian, agree.
fn common_prefix(a: &[u8], b: &[u8], width: u32) -> u32 {
    let spare = (a.len() as u32 * 8).saturating_sub(width);
    (0..width)
        .take_while(|i| {
            let bit = spare + i;
            let of = |x: &[u8]| x.get((bit / 8) as usize).map(|b| b & (0x80 >> (bit % 8)));
            of(a) == of(b)
        })
        .count() as u32
}

/// Leading one bits (of `width`) of `mask`, big-endian.
fn leading_ones(mask: &[u8], width: u32) -> u32 {
    let zeros = vec![0u8; mask.len()];
    let inverted: Vec<u8> = mask.iter().map(|b| !b).collect();
    common_prefix(&inverted, &zeros, width)
}

/// The rule's shape (the bits it always fixes) and its value there.
fn shape(table: &Table, rule: &Rule) -> (Vec<u8>, Vec<u8>) {
    let (mut mask, mut value) = (rule.mask.clone(), rule.value.clone());
    let Some((lo, hi)) = &rule.bounds else {
        return (mask, value);
    };
    for key in table
        .keys
        .iter()
        .filter(|k| k.match_kind == MatchKind::Range)
    {
        let f = &key.field;
        let (lo, hi) = (field_be(lo, f), field_be(hi, f));
        let fixed = value::prefix_mask(common_prefix(&lo, &hi, f.bit_width), f.bit_width);
        put_field_be(&mut mask, f, &fixed);
        put_field_be(&mut value, f, &value::and(&lo, &fixed));
    }
    (mask, value)
}

/// The top `bits` bits of field `f` of `bytes`.
fn top_bits(bytes: &[u8], f: &FieldLayout, bits: u32) -> u32 {
    let number = (field_be(bytes, f).iter()).fold(0u128, |n, b| n << 8 | u128::from(*b));
    let shift = f.bit_width.saturating_sub(bits);
    (number.checked_shr(shift).unwrap_or(0) & ((1u128 << bits.min(16)) - 1)) as u32
}

/// The lists `rule` is counted in: the partitions holding keys it may
/// match, or the wild list when that is all of them.
fn partitions_of(table: &Table, t: &TernaryLayout, rule: &Rule) -> Vec<u32> {
    let tops: Vec<(u32, Vec<u32>)> = (t.partition.iter())
        .filter_map(|cut| {
            let key = table.keys.get(cut.key as usize)?;
            let bits = cut.bits.min(16);
            Some((bits, tops_of(key, bits, rule)))
        })
        .collect();
    if tops.iter().all(|(bits, tops)| tops.len() >= 1 << bits) {
        return vec![t.wild_list()];
    }
    let mut partitions = vec![0u32];
    for (bits, tops) in &tops {
        partitions = (partitions.iter())
            .flat_map(|p| tops.iter().map(move |top| p << bits | top))
            .collect();
    }
    partitions
}

/// The values of the top `bits` bits of key field `key` that `rule` may
/// match.
fn tops_of(key: &KeyField, bits: u32, rule: &Rule) -> Vec<u32> {
    let f = &key.field;
    match (&rule.bounds, key.match_kind) {
        (Some((lo, hi)), MatchKind::Range) => {
            (top_bits(lo, f, bits)..=top_bits(hi, f, bits)).collect()
        }
        _ => {
            let (value, mask) = (
                top_bits(&rule.value, f, bits),
                top_bits(&rule.mask, f, bits),
            );
            (0..1u32 << bits)
                .filter(|v| v & mask == value & mask)
                .collect()
        }
    }
}

/// `mask` with each field of at least `min_width` bits cut to its leading
/// ones, rounded down by `round` (to a number of bits), and the other
/// fields left out.
fn relax(table: &Table, mask: &[u8], min_width: u32, round: fn(u32, u32) -> u32) -> Vec<u8> {
    let mut relaxed = vec![0u8; mask.len()];
    for key in table.keys.iter().filter(|k| k.field.bit_width >= min_width) {
        let f = &key.field;
        let ones = leading_ones(&field_be(mask, f), f.bit_width);
        put_field_be(
            &mut relaxed,
            f,
            &value::prefix_mask(round(ones, f.bit_width), f.bit_width),
        );
    }
    relaxed
}

/// Leading ones rounded down to whole bytes.
fn whole_bytes(ones: u32, _width: u32) -> u32 {
    ones / 8 * 8
}

/// Leading ones rounded down to the coarsest step: the first two bytes
/// or none (a /16 site holds its subnets and hosts while its bucket has
/// room).
fn site_steps(ones: u32, _width: u32) -> u32 {
    if ones >= 16 {
        16
    } else {
        0
    }
}

/// Leading ones rounded down to the steps hosts and subnets nest into:
/// whole bytes, but a whole field drops its last byte (a host joins its
/// /24) and a lone first byte drops to none (a /8 joins the wildcards).
/// Fewer groups to probe; the bits cut are checked in the bucket, whose
/// length bounds what a group may take (bench/classbench/README.md).
fn nesting_steps(ones: u32, width: u32) -> u32 {
    match whole_bytes(ones, width) {
        8 => 0,
        bytes if bytes == width && width > 8 => width - 8,
        bytes => bytes,
    }
}

/// The group masks a rule of shape `mask` may join, coarsest first: the
/// address-wide fields relaxed to sites, to nesting steps, to whole bytes
/// (ports and protocol tell few rules apart and would multiply the
/// groups), every field relaxed, the shape itself.
fn group_masks(table: &Table, mask: &[u8]) -> Vec<Vec<u8>> {
    let widest = table
        .keys
        .iter()
        .map(|k| k.field.bit_width)
        .max()
        .unwrap_or(0);
    let mut masks = vec![
        relax(table, mask, widest.min(32), site_steps),
        relax(table, mask, widest.min(32), nesting_steps),
        relax(table, mask, widest.min(32), whole_bytes),
        relax(table, mask, 0, whole_bytes),
        mask.to_vec(),
    ];
    masks.dedup();
    masks
}

/// Whether every bit of `group` is also in `mask`.
fn covers(group: &[u8], mask: &[u8]) -> bool {
    group.len() == mask.len() && group.iter().zip(mask).all(|(g, m)| g & !m == 0)
}

fn bucket_key(t: &TernaryLayout, group: u32, value: &[u8], mask: &[u8]) -> Vec<u8> {
    let mut key = vec![0u8; t.bucket_key_size as usize];
    put(&mut key, 0, &group.to_ne_bytes());
    put(
        &mut key,
        t.bucket_key_offset as usize,
        &value::and(value, mask),
    );
    key
}

fn encode_bucket(t: &TernaryLayout, key_size: usize, rules: &[Rule]) -> Vec<u8> {
    let mut bucket = vec![0u8; t.bucket_size as usize];
    put(&mut bucket, 0, &(rules.len() as u32).to_ne_bytes());
    for (i, r) in rules.iter().enumerate() {
        let at = (t.rules_offset + i as u32 * t.rule_size) as usize;
        put(&mut bucket, at, &r.value);
        put(&mut bucket, at + t.rule_mask_offset as usize, &r.mask);
        if let (Some((lo, hi)), Some(bounds)) = (&r.bounds, t.rule_bounds_offset) {
            put(&mut bucket, at + bounds as usize, lo);
            put(&mut bucket, at + bounds as usize + key_size, hi);
        }
        let copied = t
            .cells
            .as_ref()
            .and_then(|c| r.action.get(..c.head_size as usize));
        put(
            &mut bucket,
            at + t.rule_value_offset as usize,
            copied.unwrap_or(&r.action),
        );
    }
    bucket
}

/// The slot a rule's value names in the cells map.
fn slot_of(t: &TernaryLayout, action: &[u8]) -> Option<u32> {
    let cells = t.cells.as_ref()?;
    Some(u32_at(action, cells.slot_offset as usize))
}

/// The rules of a bucket's bytes.
pub fn decode_bucket(table: &Table, bucket: &[u8]) -> Result<Vec<Rule>> {
    let t = layout(table)?;
    let key_size = table.key_size as usize;
    let count = u32_at(bucket, 0).min(t.bucket_rules);
    let value_size = (t.rule_size - t.rule_value_offset) as usize;
    let rules = (0..count).filter_map(|i| {
        let at = (t.rules_offset + i * t.rule_size) as usize;
        let part = |offset: usize, len: usize| {
            bucket
                .get(at + offset..at + offset + len)
                .map(<[u8]>::to_vec)
        };
        let bounds = match t.rule_bounds_offset {
            Some(b) => Some((
                part(b as usize, key_size)?,
                part(b as usize + key_size, key_size)?,
            )),
            None => None,
        };
        Some(Rule {
            value: part(0, key_size)?,
            mask: part(t.rule_mask_offset as usize, key_size)?,
            bounds,
            action: part(t.rule_value_offset as usize, value_size)?,
        })
    });
    Ok(rules.collect())
}

impl Classifier {
    /// The classifier the maps hold, from the filters map (`filter` gives
    /// a group id's value), every (bucket key, bucket) pair and, for a
    /// table with direct cells, the cells map (`cell` gives a slot's
    /// value: a rule's whole value; `None` keeps the head the bucket
    /// holds). What the group lists say is not
    /// read: it counts as nothing listed, so the first change adding to a
    /// list writes it whole.
    pub fn from_maps(
        table: &Table,
        filter: impl Fn(u32) -> Result<Vec<u8>>,
        cell: impl Fn(u32) -> Result<Option<Vec<u8>>>,
        buckets: impl IntoIterator<Item = (Vec<u8>, Vec<u8>)>,
    ) -> Result<Classifier> {
        let t = layout(table)?;
        let mut c = Classifier::default();
        for (key, bytes) in buckets {
            let id = u32_at(&key, 0);
            if !c.groups.contains_key(&id) {
                let mask = filter(id)?
                    .get(..table.key_size as usize)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| bad(table, "a truncated filter"))?;
                c.open(t, id, mask);
            }
            c.mark(id, &key);
            for mut rule in decode_bucket(table, &bytes)? {
                if let Some(slot) = slot_of(t, &rule.action) {
                    if let Some(value) = cell(slot)? {
                        rule.action = value;
                    }
                    c.slots.insert(slot);
                    c.next_slot = c.next_slot.max(slot + 1);
                }
                let partitions = partitions_of(table, t, &rule);
                c.count_in(id, priority(t, &rule.action), 1, &partitions);
                c.note(&rule, priority(t, &rule.action), &key);
                c.buckets.entry(key.clone()).or_default().push(rule);
            }
        }
        Ok(c)
    }

    /// How many rules the table holds.
    pub fn len(&self) -> usize {
        self.rules
    }

    pub fn is_empty(&self) -> bool {
        self.rules == 0
    }

    fn note(&mut self, rule: &Rule, priority: u32, bucket: &[u8]) {
        self.index
            .entry(rule.key())
            .or_default()
            .push((priority, bucket.to_vec()));
        self.rules += 1;
    }

    fn forget(&mut self, key: &MatchKey, priority: u32) {
        if let Some(found) = self.index.get_mut(key) {
            found.retain(|(p, _)| *p != priority);
            if found.is_empty() {
                self.index.remove(key);
            }
            self.rules = self.rules.saturating_sub(1);
        }
    }

    /// The priority and bucket of the rule `entry` names: its match at
    /// its priority, or the only rule with its match (so a rule can be
    /// named without its priority when no other matches alike).
    fn locate(&self, t: &TernaryLayout, entry: &EncodedEntry) -> Option<(u32, Vec<u8>)> {
        let found = self.index.get(&Rule::of(entry)?.key())?;
        let wanted = priority(t, &entry.value);
        found
            .iter()
            .find(|(p, _)| *p == wanted)
            .or_else(|| found.first().filter(|_| found.len() == 1))
            .cloned()
    }

    /// How many groups are in use.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Bytes of map values and keys the classifier occupies: the group
    /// lists, the filters (an array: all `max_groups` of them) and every
    /// bucket with its key.
    pub fn map_bytes(&self, table: &Table) -> Result<u64> {
        let t = layout(table)?;
        let bucket = u64::from(t.bucket_key_size + t.bucket_size);
        let filters = u64::from(t.max_groups) * u64::from(t.filter_size());
        let lists = self.partitions().len() as u64 * u64::from(t.groups_size());
        Ok(lists + filters + self.buckets.len() as u64 * bucket)
    }

    /// Every list key some group has rules in or the map has a list of.
    fn partitions(&self) -> std::collections::BTreeSet<u32> {
        (self.groups.values())
            .flat_map(|g| g.by_partition.keys())
            .chain(self.listed.keys())
            .copied()
            .collect()
    }

    /// The slot of the cells map `rule` holds (tables with direct cells).
    pub fn slot(&self, table: &Table, rule: &Rule) -> Option<u32> {
        slot_of(layout(table).ok()?, &rule.action)
    }

    /// Every rule, bucket by bucket.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.buckets.values().flatten()
    }

    /// The stored rule `entry` names, if any.
    pub fn find(&self, table: &Table, entry: &EncodedEntry) -> Option<&Rule> {
        let t = layout(table).ok()?;
        let (p, bucket) = self.locate(t, entry)?;
        let key = Rule::of(entry)?.key();
        self.buckets
            .get(&bucket)?
            .iter()
            .find(|r| r.is(&key, priority(t, &r.action), p))
    }

    fn open(&mut self, t: &TernaryLayout, id: u32, mask: Vec<u8>) {
        self.by_mask.entry(mask.clone()).or_default().push(id);
        self.groups.insert(
            id,
            Group {
                id,
                mask,
                priorities: BTreeMap::new(),
                by_partition: HashMap::new(),
                filter: vec![0; t.filter_words as usize],
            },
        );
        self.next_id = id.wrapping_add(1) % t.max_groups.max(1);
    }

    /// A group id below `max_groups` no group has, after the last one given
    /// (an id just freed is taken last: a lookup may still hold a list
    /// that names it).
    fn free_id(&self, t: &TernaryLayout) -> Option<u32> {
        let max = t.max_groups.max(1);
        (0..max)
            .map(|i| (self.next_id + i) % max)
            .find(|id| !self.groups.contains_key(id))
    }

    /// Set the filter bit of `bucket_key` in group `id`; whether it was clear.
    fn mark(&mut self, id: u32, bucket_key: &[u8]) -> bool {
        let Some(group) = self.groups.get(&id) else {
            return false;
        };
        let bit = filter_bit(bucket_key, group.filter.len() as u32);
        let Some(word) = self
            .groups
            .get_mut(&id)
            .and_then(|g| g.filter.get_mut((bit / 32) as usize))
        else {
            return false;
        };
        let was_clear = *word & (1 << (bit % 32)) == 0;
        *word |= 1 << (bit % 32);
        was_clear
    }

    /// The filter of group `id` as its map value: its mask, then its bits.
    fn filter(&self, t: &TernaryLayout, id: u32) -> Vec<u8> {
        let Some(group) = self.groups.get(&id) else {
            return vec![];
        };
        let mut value = vec![0u8; t.filter_bits_offset as usize];
        put(&mut value, 0, &group.mask);
        value.extend(group.filter.iter().flat_map(|w| w.to_ne_bytes()));
        value
    }

    fn close(&mut self, id: u32) {
        let Some(group) = self.groups.remove(&id) else {
            return;
        };
        if let Some(ids) = self.by_mask.get_mut(&group.mask) {
            ids.retain(|g| *g != id);
            if ids.is_empty() {
                self.by_mask.remove(&group.mask);
            }
        }
    }

    /// Count `n` more (or, negative, fewer) rules of `priority` in group
    /// `id`, overlapping `partitions`.
    fn count_in(&mut self, id: u32, priority: u32, n: isize, partitions: &[u32]) {
        let Some(group) = self.groups.get_mut(&id) else {
            return;
        };
        Self::count(&mut group.priorities, priority, n);
        for p in partitions {
            let counts = group.by_partition.entry(*p).or_default();
            Self::count(counts, priority, n);
            if counts.is_empty() {
                group.by_partition.remove(p);
            }
        }
    }

    fn count(counts: &mut BTreeMap<u32, usize>, priority: u32, n: isize) {
        let count = counts.entry(priority).or_default();
        *count = count.saturating_add_signed(n);
        if *count == 0 {
            counts.remove(&priority);
        }
    }

    /// The group list of `partition` (or the wild list), to be written:
    /// the groups with rules there, by their best priority there, highest
    /// first.
    pub fn list(&mut self, table: &Table, partition: u32) -> Result<Vec<u8>> {
        let t = layout(table)?;
        let mut groups: Vec<(u32, u32)> = (self.groups.values())
            .filter_map(|g| Some((g.best_in(partition)?, g.id)))
            .collect();
        groups.sort_by_key(|(best, id)| (std::cmp::Reverse(*best), *id));
        let mut list = vec![0u8; t.groups_size() as usize];
        put(&mut list, 0, &(groups.len() as u32).to_ne_bytes());
        for (i, (best, id)) in groups.iter().enumerate() {
            let at = (t.groups_offset + i as u32 * t.group_size) as usize;
            put(&mut list, at, &id.to_ne_bytes());
            put(&mut list, at + 4, &best.to_ne_bytes());
        }
        let listed = groups.into_iter().map(|(best, id)| (id, best)).collect();
        self.listed.insert(partition, listed);
        Ok(list)
    }

    /// Every (partition, group list) some group has rules in or was listed
    /// in, to be written.
    pub fn lists(&mut self, table: &Table) -> Result<Vec<(u32, Vec<u8>)>> {
        (self.partitions().into_iter())
            .map(|p| Ok((p, self.list(table, p)?)))
            .collect()
    }

    /// Every (group id, filter) pair, as the filters map holds them.
    pub fn filters(&self, table: &Table) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let t = layout(table)?;
        Ok((self.groups.keys())
            .map(|id| (id.to_ne_bytes().to_vec(), self.filter(t, *id)))
            .collect())
    }

    /// Every (bucket key, bucket) pair.
    pub fn buckets(&self, table: &Table) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let t = layout(table)?;
        let key_size = table.key_size as usize;
        Ok(self
            .buckets
            .iter()
            .map(|(key, rules)| (key.clone(), encode_bucket(t, key_size, rules)))
            .collect())
    }

    /// The first group of mask `mask` with room in `value`'s bucket.
    fn room_in(&self, t: &TernaryLayout, mask: &[u8], value: &[u8]) -> Option<Vec<u8>> {
        self.by_mask.get(mask)?.iter().find_map(|id| {
            let key = bucket_key(t, *id, value, mask);
            let used = self.buckets.get(&key).map_or(0, Vec::len);
            (used < t.bucket_rules as usize).then_some(key)
        })
    }

    /// The bucket `rule` goes to, opening a group if it needs one.
    fn home(&mut self, table: &Table, rule: &Rule) -> Result<Vec<u8>> {
        let t = layout(table)?;
        let (mask, value) = shape(table, rule);
        let candidates = group_masks(table, &mask);
        if let Some(key) = candidates.iter().find_map(|m| self.room_in(t, m, &value)) {
            return Ok(key);
        }
        if self.groups.len() >= t.max_groups as usize {
            return Err(bad(
                table,
                &format!(
                    "no room for this entry: its buckets are full and the table has all {} mask groups in use",
                    t.max_groups
                ),
            ));
        }
        // A mask no group has yet, else a second group of the finest.
        let (own, coarser) = candidates.split_last().unwrap_or((&mask, &[]));
        let group = (coarser.iter())
            .find(|m| !self.by_mask.contains_key(*m))
            .unwrap_or(own)
            .clone();
        let id = self
            .free_id(t)
            .ok_or_else(|| bad(table, "no free group id"))?;
        let key = bucket_key(t, id, &value, &group);
        self.open(t, id, group);
        Ok(key)
    }

    /// Add `entry`; the writes that put it in the maps.
    pub fn insert(&mut self, table: &Table, entry: &EncodedEntry) -> Result<Vec<MapWrite>> {
        let t = layout(table)?;
        let mut rule =
            Rule::of(entry).ok_or_else(|| bad(table, "a ternary entry without its mask"))?;
        if rule.mask.len() != table.key_size as usize || !covers(&rule.value, &rule.mask) {
            return Err(bad(table, "an entry whose value has bits outside its mask"));
        }
        let best = priority(t, &rule.action);
        let taken = self.index.get(&rule.key());
        if taken.is_some_and(|found| found.iter().any(|(p, _)| *p == best)) {
            return Err(bad(
                table,
                "an entry with this key and priority already exists",
            ));
        }
        if self.len() >= table.size as usize {
            return Err(bad(
                table,
                &format!("the table is full ({} entries)", table.size),
            ));
        }
        let cell = self.take_slot(table, &mut rule)?;
        let key = self.home(table, &rule).inspect_err(|_| {
            if let Some(slot) = slot_of(t, &rule.action) {
                self.slots.remove(&slot);
            }
        })?;
        let id = u32_at(&key, 0);
        let marked = self.mark(id, &key);
        let partitions = partitions_of(table, t, &rule);
        self.count_in(id, best, 1, &partitions);
        self.note(&rule, best, &key);
        let rules = self.buckets.entry(key.clone()).or_default();
        let at = rules
            .iter()
            .position(|r| priority(t, &r.action) < best)
            .unwrap_or(rules.len());
        rules.insert(at, rule);
        let mut writes = self.writes_for(table, &key, &partitions)?;
        if marked {
            // The bit goes on before the bucket it lets lookups find.
            writes.insert(0, MapWrite::Filter(id, self.filter(t, id)));
        }
        writes.splice(0..0, cell);
        Ok(writes)
    }

    /// For a table with direct cells: give `rule` a free slot (named in
    /// its value) and the write of its value there, which goes first.
    fn take_slot(&mut self, table: &Table, rule: &mut Rule) -> Result<Option<MapWrite>> {
        let t = layout(table)?;
        let Some(cells) = &t.cells else {
            return Ok(None);
        };
        let slot = self
            .free_slot(cells.slots)
            .ok_or_else(|| bad(table, "no free slot for the entry's direct counters"))?;
        put(
            &mut rule.action,
            cells.slot_offset as usize,
            &slot.to_ne_bytes(),
        );
        self.slots.insert(slot);
        Ok(Some(MapWrite::Cell {
            slot,
            value: rule.action.clone(),
            keep: None,
        }))
    }

    /// A slot no rule holds, after the last one given: a slot just freed
    /// is taken again last (a lookup may still hold the old bucket).
    fn free_slot(&mut self, slots: u32) -> Option<u32> {
        let slots = slots.max(1);
        let free = (0..slots)
            .map(|i| (self.next_slot + i) % slots)
            .find(|s| !self.slots.contains(s))?;
        self.next_slot = (free + 1) % slots;
        Some(free)
    }

    /// Remove the rule `entry` names; the writes that take it out.
    pub fn remove(&mut self, table: &Table, entry: &EncodedEntry) -> Result<Vec<MapWrite>> {
        let t = layout(table)?;
        let (p, bucket_key) = self
            .locate(t, entry)
            .ok_or_else(|| bad(table, "no entry with this key"))?;
        let key = Rule::of(entry)
            .map(|r| r.key())
            .ok_or_else(|| bad(table, "a ternary entry without its mask"))?;
        self.forget(&key, p);
        let id = u32_at(&bucket_key, 0);
        let mut partitions = vec![];
        if let Some(rules) = self.buckets.get_mut(&bucket_key) {
            if let Some(at) = rules
                .iter()
                .position(|r| r.is(&key, priority(t, &r.action), p))
            {
                let removed = rules.remove(at);
                partitions = partitions_of(table, t, &removed);
                if let Some(slot) = slot_of(t, &removed.action) {
                    self.slots.remove(&slot);
                }
            }
            if rules.is_empty() {
                self.buckets.remove(&bucket_key);
            }
        }
        self.count_in(id, p, -1, &partitions);
        if self
            .groups
            .get(&id)
            .is_some_and(|g| g.priorities.is_empty())
        {
            self.close(id);
        }
        self.writes_for(table, &bucket_key, &[])
    }

    /// Give the rule `entry` names `entry`'s action and parameters; its
    /// priority, part of what names it, stays. Only its bucket changes.
    pub fn modify(&mut self, table: &Table, entry: &EncodedEntry) -> Result<Vec<MapWrite>> {
        let t = layout(table)?;
        let no_entry = || bad(table, "no entry with this key");
        let (p, bucket_key) = self.locate(t, entry).ok_or_else(no_entry)?;
        let key = Rule::of(entry).map(|r| r.key()).ok_or_else(no_entry)?;
        let rules = self.buckets.get(&bucket_key).ok_or_else(no_entry)?;
        let rule = rules
            .iter()
            .find(|r| r.is(&key, priority(t, &r.action), p))
            .ok_or_else(no_entry)?;
        let old_slot = slot_of(t, &rule.action);
        let mut changed = rule.clone();
        changed.action = entry.value.clone();
        put(
            &mut changed.action,
            t.priority_offset as usize,
            &p.to_ne_bytes(),
        );
        // A new slot with the old cells: a lookup sees the old value or the new.
        let mut writes: Vec<MapWrite> = self.take_slot(table, &mut changed)?.into_iter().collect();
        if let (Some(MapWrite::Cell { keep, .. }), Some(old)) = (writes.first_mut(), old_slot) {
            *keep = Some(old);
            self.slots.remove(&old);
        }
        let rules = self.buckets.get_mut(&bucket_key).ok_or_else(no_entry)?;
        if let Some(rule) = rules
            .iter_mut()
            .find(|r| r.is(&key, priority(t, &r.action), p))
        {
            *rule = changed;
        }
        writes.push(MapWrite::Bucket(
            bucket_key.clone(),
            self.bucket(table, &bucket_key)?,
        ));
        Ok(writes)
    }

    /// The bytes of bucket `key`, `None` when it holds no rule.
    pub fn bucket(&self, table: &Table, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let t = layout(table)?;
        Ok(self
            .buckets
            .get(key)
            .map(|rules| encode_bucket(t, table.key_size as usize, rules)))
    }

    /// The bucket write of `key`, after the group lists that would miss
    /// something: those of the lists the change `widens` where the group
    /// is new or its best priority rose above what the list says. A
    /// lowered priority or a closed group is left in a list (it only costs
    /// a probe) until the list is next written, so deleting and adding
    /// back writes no list.
    fn writes_for(&mut self, table: &Table, key: &[u8], widens: &[u32]) -> Result<Vec<MapWrite>> {
        let id = u32_at(key, 0);
        let stale: Vec<u32> = match self.groups.get(&id) {
            Some(g) => (widens.iter().copied())
                .filter(|p| {
                    let listed = self.listed.get(p).and_then(|l| l.get(&id)).copied();
                    listed < g.best_in(*p)
                })
                .collect(),
            None => vec![],
        };
        let mut writes = vec![];
        for p in stale {
            writes.push(MapWrite::Groups(p, self.list(table, p)?));
        }
        writes.push(MapWrite::Bucket(key.to_vec(), self.bucket(table, key)?));
        Ok(writes)
    }
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;
    use p4bpf_layout::{PartitionCut, TableStorage};

    fn table(bucket_rules: u32) -> Table {
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
                    signed: false,
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
                max_groups: 4,
                groups_offset: 4,
                group_size: 8,
                filters_map: "f".into(),
                filter_words: 8,
                filter_bits_offset: 4,
                bucket_key_offset: 4,
                bucket_key_size: 8,
                bucket_size: 4 + bucket_rules * 16,
                bucket_rules,
                rules_offset: 4,
                rule_size: 16,
                rule_mask_offset: 4,
                rule_bounds_offset: None,
                rule_value_offset: 8,
                priority_offset: 4,
                partition: vec![],
                cells: None,
            }),
        }
    }

    fn entry(value: u32, mask: u32, priority: u32) -> EncodedEntry {
        let mut v = 1u32.to_ne_bytes().to_vec();
        v.extend_from_slice(&priority.to_ne_bytes());
        EncodedEntry {
            key: (value & mask).to_ne_bytes().to_vec(),
            value: v,
            mask: Some(mask.to_ne_bytes().to_vec()),
            bounds: None,
        }
    }

    fn priorities(c: &Classifier, t: &Table) -> Vec<Vec<u32>> {
        let l = t.ternary.as_ref().unwrap();
        let mut all: Vec<Vec<u32>> = c
            .buckets
            .values()
            .map(|rules| rules.iter().map(|r| priority(l, &r.action)).collect())
            .collect();
        all.sort();
        all
    }

    #[test]
    fn masks_differing_in_low_bits_share_one_group_and_rules_sort_by_priority() {
        let t = table(8);
        let mut c = Classifier::default();
        c.insert(&t, &entry(0x0a000001, 0xffffff0f, 5)).unwrap();
        c.insert(&t, &entry(0x0a000002, 0xffffff03, 9)).unwrap();
        assert_eq!(c.groups.len(), 1);
        assert_eq!(priorities(&c, &t), vec![vec![9, 5]]);
    }

    fn masks(c: &Classifier) -> BTreeSet<u32> {
        (c.groups.values())
            .map(|g| u32::from_ne_bytes(g.mask.clone().try_into().unwrap()))
            .collect()
    }

    #[test]
    fn hosts_and_subnets_nest_in_their_site_and_a_lone_first_byte_with_the_wildcards() {
        let t = table(8);
        let mut c = Classifier::default();
        c.insert(&t, &entry(0x0a010000, 0xffff0000, 1)).unwrap();
        c.insert(&t, &entry(0x0a010100, 0xffffff00, 2)).unwrap();
        c.insert(&t, &entry(0x0a010101, 0xffffffff, 3)).unwrap();
        c.insert(&t, &entry(0, 0, 4)).unwrap();
        c.insert(&t, &entry(0x0a000000, 0xff000000, 5)).unwrap();
        // Two groups: the /16 with its subnet and host, none with the /8.
        assert_eq!(masks(&c), BTreeSet::from([0, 0xffff0000]));
        assert_eq!(priorities(&c, &t), vec![vec![3, 2, 1], vec![5, 4]]);
        // Full buckets send the next hosts to their /24, then to a group
        // of their own.
        let t = table(2);
        let mut c = Classifier::default();
        for (i, host) in (0x0a000101..0x0a000107).enumerate() {
            c.insert(&t, &entry(host, 0xffffffff, i as u32)).unwrap();
        }
        let want = BTreeSet::from([0xffff0000, 0xffffff00, 0xffffffff]);
        assert_eq!(masks(&c), want);
    }

    #[test]
    fn full_buckets_open_groups_even_with_a_mask_in_use() {
        let t = table(1);
        let mut c = Classifier::default();
        for p in 0..4 {
            c.insert(&t, &entry(0x0a000001, 0xffffff01, p)).unwrap();
        }
        // Site, /24 and own-mask groups, then a fourth repeating a mask.
        assert_eq!(c.groups.len(), 4);
        assert_eq!(masks(&c).len(), 3);
        let full = c.insert(&t, &entry(0x0a000001, 0xffffff01, 5));
        assert!(full.is_err_and(|e| e.to_string().contains("mask groups")));
    }

    #[test]
    fn a_raised_group_is_listed_before_its_bucket_and_a_closed_one_stays_listed() {
        let t = table(8);
        let mut c = Classifier::default();
        // No partition cut: every rule is in the wild list (key 1).
        let writes = c.insert(&t, &entry(1, 0xff, 3)).unwrap();
        assert!(matches!(
            writes.as_slice(),
            [
                MapWrite::Filter(..),
                MapWrite::Groups(1, _),
                MapWrite::Bucket(_, Some(_))
            ]
        ));
        // Same group, no higher priority: no list write (a filter bit may be).
        let writes = c.insert(&t, &entry(2, 0xff, 1)).unwrap();
        assert!(matches!(writes.last(), Some(MapWrite::Bucket(_, Some(_)))));
        assert!(!writes.iter().any(|w| matches!(w, MapWrite::Groups(..))));
        // A lowered best and a closed group stay in the list.
        let writes = c.remove(&t, &entry(1, 0xff, 0)).unwrap();
        assert!(matches!(writes.as_slice(), [MapWrite::Bucket(_, Some(_))]));
        let writes = c.remove(&t, &entry(2, 0xff, 0)).unwrap();
        assert!(matches!(writes.as_slice(), [MapWrite::Bucket(_, None)]));
        assert!(c.groups.is_empty() && c.is_empty());
        // Back at a priority above the stale one: listed again first.
        let writes = c.insert(&t, &entry(1, 0xff, 4)).unwrap();
        assert!(matches!(writes.get(1), Some(MapWrite::Groups(1, _))));
        assert_eq!(listed(&mut c, &t, 1).len(), 1);
    }

    #[test]
    fn the_maps_read_back_give_the_same_classifier() {
        let t = table(2);
        let mut c = Classifier::default();
        for i in 0..6 {
            c.insert(&t, &entry(i, 0xff, i)).unwrap();
        }
        let lists = c.lists(&t).unwrap();
        let filters: HashMap<Vec<u8>, Vec<u8>> = c.filters(&t).unwrap().into_iter().collect();
        let filter = |id: u32| Ok(filters[&id.to_ne_bytes().to_vec()].clone());
        let no_cells = |slot: u32| Err(RuntimeError::Value(format!("no cells: {slot}")));
        let mut back = Classifier::from_maps(&t, filter, no_cells, c.buckets(&t).unwrap()).unwrap();
        assert_eq!(back.lists(&t).unwrap(), lists);
        assert_eq!(priorities(&back, &t), priorities(&c, &t));
        assert!(back.find(&t, &entry(3, 0xff, 0)).is_some());
    }

    #[test]
    fn a_match_may_repeat_at_another_priority_and_is_then_named_with_it() {
        let t = table(8);
        let mut c = Classifier::default();
        c.insert(&t, &entry(1, 0xff, 1)).unwrap();
        assert!(c.insert(&t, &entry(1, 0xff, 1)).is_err());
        c.insert(&t, &entry(1, 0xff, 2)).unwrap();
        assert!(c.remove(&t, &entry(1, 0xff, 7)).is_err());
        c.remove(&t, &entry(1, 0xff, 2)).unwrap();
        // The only rule left with this match is found without its priority.
        c.modify(&t, &entry(1, 0xff, 0)).unwrap();
        assert_eq!(priorities(&c, &t), vec![vec![1]]);
        assert_eq!(c.len(), 1);
    }

    /// `table(8)` with direct cells: values of 12 bytes (action,
    /// priority, slot), rules holding them whole, 4 slots.
    fn with_cells() -> Table {
        let mut t = table(8);
        t.value_size = 12;
        if let Some(l) = t.ternary.as_mut() {
            // Rules of key, mask and the 12-byte head.
            l.rule_size = 20;
            l.bucket_size = 4 + l.bucket_rules * l.rule_size;
            l.cells = Some(p4bpf_layout::TernaryCells {
                map: "c".into(),
                slots: 4,
                slot_offset: 8,
                head_size: 12,
            });
        }
        t
    }

    fn celled(value: u32, priority: u32, action: u32) -> EncodedEntry {
        let mut e = entry(value, 0xff, priority);
        e.value = [action, priority, 0]
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect();
        e
    }

    /// The (slot, kept slot) of each cell write, and whether each comes
    /// before the bucket write.
    fn cell_writes(writes: &[MapWrite]) -> Vec<(u32, Option<u32>)> {
        let bucket = writes
            .iter()
            .position(|w| matches!(w, MapWrite::Bucket(..)));
        (writes.iter().enumerate())
            .filter_map(|(i, w)| match w {
                MapWrite::Cell { slot, keep, value } => {
                    assert!(Some(i) < bucket, "a cell written after its bucket");
                    assert_eq!(u32_at(value, 8), *slot, "the value names its slot");
                    Some((*slot, *keep))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn rules_with_direct_cells_get_fresh_slots_and_a_modify_keeps_the_cells() {
        let t = with_cells();
        let mut c = Classifier::default();
        assert_eq!(
            cell_writes(&c.insert(&t, &celled(1, 5, 1)).unwrap()),
            vec![(0, None)]
        );
        assert_eq!(
            cell_writes(&c.insert(&t, &celled(2, 5, 1)).unwrap()),
            vec![(1, None)]
        );
        // A modify moves the rule to a new slot, carrying slot 0's cells.
        assert_eq!(
            cell_writes(&c.modify(&t, &celled(1, 5, 2)).unwrap()),
            vec![(2, Some(0))]
        );
        // Freed slots come back last: 3, then 0.
        c.remove(&t, &celled(2, 5, 0)).unwrap();
        assert_eq!(
            cell_writes(&c.insert(&t, &celled(3, 5, 1)).unwrap()),
            vec![(3, None)]
        );
        assert_eq!(
            cell_writes(&c.insert(&t, &celled(4, 5, 1)).unwrap()),
            vec![(0, None)]
        );
        // The bucket holds the head only: action, priority, slot.
        let rules: Vec<Rule> = (c.buckets(&t).unwrap().iter())
            .flat_map(|(_, b)| decode_bucket(&t, b).unwrap())
            .collect();
        assert_eq!(rules.len(), 3);
        assert!(rules.iter().all(|r| r.action.len() == 12));
        // Read back, each rule takes its whole value from its slot.
        let values: HashMap<u32, Vec<u8>> = (c.rules())
            .map(|r| (u32_at(&r.action, 8), r.action.clone()))
            .collect();
        let filters: HashMap<Vec<u8>, Vec<u8>> = c.filters(&t).unwrap().into_iter().collect();
        let filter = |id: u32| Ok(filters[&id.to_ne_bytes().to_vec()].clone());
        let cell = |slot: u32| Ok(Some(values[&slot].clone()));
        let mut back = Classifier::from_maps(&t, filter, cell, c.buckets(&t).unwrap()).unwrap();
        assert_eq!(
            back.find(&t, &celled(1, 5, 0))
                .map(|r| u32_at(&r.action, 0)),
            Some(2)
        );
        // Slots 0, 2, 3 taken: the next is 1.
        assert_eq!(
            cell_writes(&back.insert(&t, &celled(9, 5, 1)).unwrap()),
            vec![(1, None)]
        );
    }

    /// The group ids a partition's list names, in order.
    fn listed(c: &mut Classifier, t: &Table, partition: u32) -> Vec<u32> {
        let list = c.list(t, partition).unwrap();
        let l = t.ternary.as_ref().unwrap();
        (0..u32_at(&list, 0))
            .map(|i| u32_at(&list, (l.groups_offset + i * l.group_size) as usize))
            .collect()
    }

    #[test]
    fn a_partition_lists_only_the_groups_with_rules_there_and_wild_rules_one_list() {
        let mut t = table(8);
        // Partitions by the top two bits of the key: 0x00.., 0x40.., ...;
        // the wild list is key 4.
        t.ternary.as_mut().unwrap().partition = vec![PartitionCut { key: 0, bits: 2 }];
        let mut c = Classifier::default();
        let lists_written = |writes: &[MapWrite]| -> Vec<u32> {
            (writes.iter())
                .filter_map(|w| match w {
                    MapWrite::Groups(p, _) => Some(*p),
                    _ => None,
                })
                .collect()
        };
        let writes = c.insert(&t, &entry(0x4000_0001, 0xffff_ffff, 5)).unwrap();
        assert_eq!(lists_written(&writes), vec![1]);
        // A rule wild in the top bits writes the wild list only.
        let writes = c.insert(&t, &entry(0x0000_0001, 0x0000_00ff, 9)).unwrap();
        assert_eq!(lists_written(&writes), vec![4]);
        // One fixing one of the two bits: two partitions.
        let writes = c.insert(&t, &entry(0x8000_0000, 0x8000_0000, 7)).unwrap();
        assert_eq!(lists_written(&writes), vec![2, 3]);
        assert_eq!(listed(&mut c, &t, 1).len(), 1);
        assert_eq!(listed(&mut c, &t, 3).len(), 1);
        assert_eq!(listed(&mut c, &t, 4).len(), 1);
        // Closing the specific group writes no list; the next write of its
        // list drops it.
        let writes = c.remove(&t, &entry(0x4000_0001, 0xffff_ffff, 5)).unwrap();
        assert_eq!(lists_written(&writes), Vec::<u32>::new());
        assert_eq!(listed(&mut c, &t, 1).len(), 0);
    }
}
