//! Byte layouts of every table's map key and value, computed once and used
//! by both the C emitter (which prints the structs) and the pipeline
//! description (which tells the runtime where each byte goes).
//!
//! Keys: exact and ternary keys hold fields in host order with natural
//! alignment, except 16/32/64-bit fields of hash keys, which stay in
//! network order; LPM keys are packed, in network order, exact fields first and
//! the LPM field last, after a u32 prefix length. Values: a u32 action code,
//! a u32 priority for ternary tables, then a union of one struct of
//! parameters per action, then the cells of the table's direct counters
//! and meters, if any. Ternary tables also have an array of mask
//! groups and buckets of rules keyed by (group, key & group mask).

use crate::cstruct::{CStruct, Scalar};
use crate::ir::{
    ActionId, CounterUnit, ExternId, ExternKind, MatchKind, Program, Storage, Table, Ty,
};
use p4bpf_layout::ByteOrder;

/// Most groups a ternary table's list holds (fewer when its `size` is
/// smaller): the list is one map value, replaced whole on a change.
pub const MAX_TERNARY_GROUPS: u32 = 4096;
/// u32 words of a ternary group's bucket filter (8192 bits: the top 13
/// bits of the bucket key's hash), a power of two. ClassBench steady ns
/// per packet, fw1/ipc1: 346/532 at 256 bits, 271/439 at 2048, 231/373 here.
pub const TERNARY_FILTER_WORDS: u32 = 256;
/// Bytes of a ternary value's head when its table has direct cells:
/// action, priority, and the rule's slot in the cells map. A bucket's rule
/// holds only this head (`p4bpf_layout::TernaryCells`).
pub const TERNARY_HEAD_WITH_CELLS: u32 = 12;
/// Rules in one ternary bucket (scanned in priority order).
pub const TERNARY_BUCKET_RULES: u32 = 16;
/// Most bits of a ternary table's partition (256 lists and the wild one,
/// each up to `max_groups` (id, priority) pairs). ClassBench steady ns per
/// packet, fw1/ipc1, this machine under load: 318/483 with one list,
/// 228/356 at 4 bits, 208/284 at 8; updates 50-80K/s at 4 and 8 alike.
pub const MAX_PARTITION_BITS: u32 = 8;

/// Byte layout of a ternary table's group list, buckets and rules (see
/// `p4bpf_layout::TernaryLayout`): computed here, printed as C structs and
/// checked there with `_Static_assert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TernaryShape {
    pub max_groups: u32,
    /// Offset of the first group in the list (after the u32 count).
    pub groups_offset: u32,
    pub group_size: u32,
    /// Offset of a filter's bits (after the group's mask).
    pub filter_bits_offset: u32,
    /// Offset of the key struct in a bucket key (after the u32 group id).
    pub key_offset: u32,
    pub bucket_key_size: u32,
    pub rule_mask_offset: u32,
    /// Where a rule's `lo` and `hi` key structs start (range tables only).
    pub rule_bounds_offset: Option<u32>,
    pub rule_value_offset: u32,
    pub rule_size: u32,
    pub rules_offset: u32,
    pub bucket_size: u32,
    /// Elements of the direct cells map: twice the rules, so a freed slot
    /// is taken again only after `size` others (a lookup in flight may
    /// still hold it).
    pub cell_slots: u32,
}

fn align_to(value: u32, align: u32) -> u32 {
    value.div_ceil(align.max(1)) * align.max(1)
}

#[derive(Clone, Debug)]
pub struct TableLayout {
    /// Key fields without the LPM prefix length.
    pub key: CStruct,
    /// For each field of `key`, the index of the P4 key it holds.
    pub key_order: Vec<usize>,
    pub lpm: bool,
    pub ternary: bool,
    /// A ternary table with a `range` key: its rules carry bounds.
    pub ranged: bool,
    /// Parameters of each action the table can run, relative to the union.
    pub params: Vec<(ActionId, CStruct)>,
    /// Offset of the parameter union in the value struct.
    pub union_offset: u32,
    pub value_size: u32,
    pub value_align: u32,
    /// The cells of the table's direct counters and meters after the
    /// union, each with its offset in the value struct.
    pub direct: Vec<(ExternId, u32)>,
    /// Its entries have timers: a u64 cell ends the value.
    pub timed: bool,
}

/// A C member name for key text; a constant key (`8w0x48`) starts with a
/// digit, which C names cannot.
fn c_member(text: &str) -> String {
    let name: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("key_{name}")
    } else {
        name
    }
}

/// The layout of `table`'s maps.
pub fn table_layout(program: &Program, table: &Table) -> TableLayout {
    let lpm = table.storage == Storage::LpmTrie;
    let ternary = table.storage == Storage::Ternary;
    let mut key_order: Vec<usize> = (0..table.keys.len()).collect();
    if lpm {
        key_order.sort_by_key(|i| table.keys.get(*i).map(|k| k.kind == MatchKind::Lpm));
    }
    let mut key = CStruct::new(lpm);
    let mut used_names: Vec<String> = vec![];
    for i in &key_order {
        let Some(k) = table.keys.get(*i) else {
            continue;
        };
        let width = k.expr.ty.width().unwrap_or(1);
        let mut name = c_member(&k.name);
        if used_names.contains(&name) || name.is_empty() {
            name = format!("{name}_{i}");
        }
        used_names.push(name.clone());
        let (scalar, order) = if lpm {
            let bytes = width.div_ceil(8);
            let scalar = match bytes {
                1 => Scalar::U8,
                2 => Scalar::U16,
                4 => Scalar::U32,
                8 => Scalar::U64,
                n => Scalar::Bytes(n),
            };
            (scalar, ByteOrder::Network)
        } else {
            let scalar = Scalar::for_width(width);
            // A hash key of a whole-word field stays in network order: the
            // swap from the packet and the swap back cancel, so the key is
            // the packet's bytes.
            let wire_word = table.storage == Storage::Hash && matches!(width, 16 | 32 | 64);
            let order = if wire_word || matches!(scalar, Scalar::Bytes(_)) {
                ByteOrder::Network
            } else {
                ByteOrder::Host
            };
            (scalar, order)
        };
        key.push(&name, &k.name, width, scalar, order);
        key.sign_last(matches!(k.expr.ty, Ty::Bits { signed: true, .. }));
    }
    let mut params = vec![];
    let mut union_align = 4;
    // A table with an action profile stores a member or group id: its
    // actions' parameters live in the profile's members.
    let mut union_size = if table.implementation.is_some() { 4 } else { 0 };
    for action in table
        .actions
        .iter()
        .filter(|_| table.implementation.is_none())
    {
        let Some(a) = program.action(*action) else {
            continue;
        };
        let mut s = CStruct::new(false);
        for v in &a.params {
            let Some(var) = program.var(*v) else { continue };
            let width = var.ty.width().unwrap_or(1);
            let scalar = Scalar::for_width(width);
            let order = if matches!(scalar, Scalar::Bytes(_)) {
                ByteOrder::Network
            } else {
                ByteOrder::Host
            };
            s.push(&var.c_name, &var.p4_name, width, scalar, order);
            s.sign_last(matches!(var.ty, Ty::Bits { signed: true, .. }));
        }
        union_align = union_align.max(s.align());
        union_size = union_size.max(if s.fields.is_empty() { 0 } else { s.size() });
        params.push((*action, s));
    }
    // action; a ternary rule's priority; with a cells map, its slot.
    let cells = !table.direct.is_empty() || table.entry_timer.is_some();
    let head: u32 = match (ternary, cells) {
        (true, false) => 8,
        (true, true) => TERNARY_HEAD_WITH_CELLS,
        (false, _) => 4,
    };
    let union_offset = head.div_ceil(union_align) * union_align;
    let value_size = (union_offset + union_size).div_ceil(union_align) * union_align;
    let (direct, value_size, union_align) = direct_cells(program, table, value_size, union_align);
    // PNA's entry timer: a u64 cell after all the others.
    let (value_size, union_align) = match table.entry_timer {
        Some(_) => (align_to(value_size, 8) + 8, union_align.max(8)),
        None => (value_size, union_align),
    };
    TableLayout {
        key,
        key_order,
        lpm,
        ternary,
        ranged: table.keys.iter().any(|k| k.kind == MatchKind::Range),
        params,
        union_offset,
        value_size,
        value_align: union_align,
        direct,
        timed: table.entry_timer.is_some(),
    }
}

/// Bytes of a direct extern's cell: a u64 per count, or a meter cell
/// (`struct p4bpf_meter`: a lock and padding, then seven u64s).
pub fn direct_cell_size(kind: &ExternKind) -> u32 {
    match kind {
        ExternKind::DirectCounter {
            unit: CounterUnit::PacketsAndBytes,
            ..
        } => 16,
        ExternKind::DirectMeter { .. } => 64,
        _ => 8,
    }
}

/// The direct cells of `table` placed from `end` (8-aligned), and the
/// value's new size and alignment; none leaves the value as it was.
fn direct_cells(
    program: &Program,
    table: &Table,
    end: u32,
    align: u32,
) -> (Vec<(ExternId, u32)>, u32, u32) {
    if table.direct.is_empty() {
        return (vec![], end, align);
    }
    let mut offset = align_to(end, 8);
    let mut cells = vec![];
    for id in &table.direct {
        let Some(x) = program.extern_instance(*id) else {
            continue;
        };
        cells.push((*id, offset));
        offset += direct_cell_size(&x.kind);
    }
    (cells, offset, align.max(8))
}

impl TableLayout {
    /// A ternary table whose rules keep their whole values in a cells map
    /// (`<table>_cells`), at the slot a rule's head names: what the data
    /// path updates in place (direct counters and meters, an entry timer)
    /// cannot live in the copy of the best rule a lookup takes.
    pub fn ternary_cells(&self) -> bool {
        self.ternary && (!self.direct.is_empty() || self.timed)
    }

    /// Where a ternary table of `size` entries keeps the parts of its
    /// group list, bucket keys and rules (natural C alignment).
    pub fn ternary_shape(&self, size: u32) -> TernaryShape {
        let key_align = self.key.align().max(1);
        let word_align = key_align.max(4);
        let key_size = align_to(self.key.size(), key_align);
        let key_offset = align_to(4, key_align);
        let keys_in_rule = if self.ranged { 4 } else { 2 };
        // With a cells map a rule holds only its value's head (u32s).
        let (rule_value_size, rule_value_align) = match self.ternary_cells() {
            false => (self.value_size, self.value_align),
            true => (TERNARY_HEAD_WITH_CELLS, 4),
        };
        let rule_align = word_align.max(rule_value_align);
        let rule_value_offset = align_to(keys_in_rule * key_size, rule_value_align.max(4));
        let rule_size = align_to(rule_value_offset + rule_value_size, rule_align);
        let rules_offset = align_to(4, rule_align);
        TernaryShape {
            max_groups: size.clamp(1, MAX_TERNARY_GROUPS),
            groups_offset: 4,
            group_size: 8,
            filter_bits_offset: align_to(key_size, 4),
            key_offset,
            bucket_key_size: align_to(key_offset + key_size, word_align),
            rule_mask_offset: key_size,
            rule_bounds_offset: self.ranged.then_some(2 * key_size),
            rule_value_offset,
            rule_size,
            rules_offset,
            bucket_size: align_to(rules_offset + TERNARY_BUCKET_RULES * rule_size, rule_align),
            cell_slots: size.saturating_mul(2).max(2),
        }
    }

    /// The cuts of a ternary table's partition (`p4bpf_layout::
    /// PartitionCut`), as (index into `key.fields`, bits): the top bits of
    /// its two widest numeric fields (addresses, in an ACL), about size/16
    /// partitions up to 2^`MAX_PARTITION_BITS`, so a partition's list
    /// holds only the groups with rules there (a rule with no bits fixed
    /// there is in all).
    pub fn ternary_cuts(&self, size: u32) -> Vec<(usize, u32)> {
        let total = size
            .max(1)
            .ilog2()
            .saturating_sub(4)
            .min(MAX_PARTITION_BITS);
        let mut numeric: Vec<(usize, u32)> = (self.key.fields.iter().enumerate())
            .filter(|(_, f)| !matches!(f.scalar, Scalar::Bytes(_)) && f.bit_width >= 8)
            .map(|(j, f)| (j, f.bit_width))
            .collect();
        numeric.sort_by_key(|(j, width)| (std::cmp::Reverse(*width), *j));
        numeric.truncate(2);
        numeric.sort();
        let count = numeric.len() as u32;
        (numeric.iter().enumerate())
            .map(|(n, (j, _))| {
                (
                    *j,
                    total / count.max(1) + u32::from((n as u32) < total % count.max(1)),
                )
            })
            .filter(|(_, bits)| *bits > 0)
            .collect()
    }

    pub fn params_of(&self, action: ActionId) -> Option<&CStruct> {
        self.params
            .iter()
            .find(|(a, _)| *a == action)
            .map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_ident_replaces_punctuation() {
        assert_eq!(c_member("hdr.ipv4[0].dst"), "hdr_ipv4_0__dst");
    }
}
