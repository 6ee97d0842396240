//! A scanned value set's slots (their layout is in `p4bpf_layout`'s
//! `ValueSet`): each member field is `(mask, lo, hi)`, host-order `u64`s,
//! a key matching when `key & mask` lies in `[lo, hi]`. An exact value is
//! `lo == hi` under the field's full mask, a ternary or lpm one under its
//! mask, a range spans `[lo, hi]` under the full mask and an optional
//! wildcard has mask 0. Reading turns a slot back into its field's kind.
//! The array holds two halves of `size` slots (see `live`).

use super::text::field_text;
use super::{check_shape, field_error, FieldMatch, Member};
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::value;
use p4bpf_layout::{FieldLayout, MatchKind, ValueSet};

const HEADER: usize = ValueSet::SLOT_HEADER_BYTES as usize;
const FIELD: usize = ValueSet::SLOT_FIELD_BYTES as usize;

/// Adds `member` in the first free slot of both halves (the same slot:
/// outside a replace they hold the same members), unless the live half
/// `live` holds it already.
pub(super) fn add(map: &Map, set: &ValueSet, live: u32, member: &Member) -> Result<()> {
    let slot = encode(set, member)?;
    let mut free = None;
    for index in 0..set.size {
        let held = read_slot(map, at(set, live, index))?;
        if held == slot {
            return Ok(());
        }
        if free.is_none() && !used(&held) {
            free = Some(index);
        }
    }
    let index = free.ok_or_else(|| {
        RuntimeError::Value(format!(
            "value set `{}` is full ({} members)",
            set.name, set.size
        ))
    })?;
    for half in [live ^ 1, live] {
        map.write(&at(set, half, index).to_ne_bytes(), &slot, Write::Replace)?;
    }
    Ok(())
}

/// The slots of `members`, every one checked.
pub(super) fn encode_all(set: &ValueSet, members: &[Member]) -> Result<Vec<Vec<u8>>> {
    members.iter().map(|m| encode(set, m)).collect()
}

/// Writes `slots` to the first slots of half `half` and frees the others.
pub(super) fn write_half(map: &Map, set: &ValueSet, slots: &[Vec<u8>], half: u32) -> Result<()> {
    let free = vec![0u8; set.slot_size() as usize];
    for index in 0..set.size {
        let slot = slots.get(index as usize).unwrap_or(&free);
        map.write(&at(set, half, index).to_ne_bytes(), slot, Write::Replace)?;
    }
    Ok(())
}

/// The members the used slots of half `half` hold, in slot order.
pub(super) fn members(map: &Map, set: &ValueSet, half: u32) -> Result<Vec<Member>> {
    let mut out = vec![];
    for index in 0..set.size {
        let slot = read_slot(map, at(set, half, index))?;
        if used(&slot) {
            out.push(decode(set, &slot));
        }
    }
    Ok(out)
}

/// The array index of slot `index` of half `half`.
fn at(set: &ValueSet, half: u32, index: u32) -> u32 {
    half * set.size + index
}

fn read_slot(map: &Map, index: u32) -> Result<Vec<u8>> {
    Ok(map
        .read(&index.to_ne_bytes())?
        .into_iter()
        .next()
        .unwrap_or_default())
}

fn used(slot: &[u8]) -> bool {
    slot.get(..HEADER)
        .is_some_and(|h| h.iter().any(|b| *b != 0))
}

/// The slot bytes of `member`: used, then each field's (mask, lo, hi).
fn encode(set: &ValueSet, member: &Member) -> Result<Vec<u8>> {
    check_shape(set, member)?;
    let mut slot = 1u64.to_ne_bytes().to_vec();
    for (index, (field, matched)) in set.fields.iter().zip(member).enumerate() {
        let (mask, lo, hi) = triple(set, field, set.match_kind(index), matched)?;
        for word in [mask, lo, hi] {
            slot.extend_from_slice(&word.to_ne_bytes());
        }
    }
    Ok(slot)
}

/// `(mask, lo, hi)` of one field of kind `kind`.
fn triple(
    set: &ValueSet,
    field: &FieldLayout,
    kind: MatchKind,
    matched: &FieldMatch,
) -> Result<(u64, u64, u64)> {
    let full = full_mask(field.bit_width);
    let number = |bytes: &[u8]| number(set, field, bytes);
    Ok(match (kind, matched) {
        (_, FieldMatch::Exact(v)) => (full, number(v)?, number(v)?),
        (MatchKind::Ternary, FieldMatch::Ternary { value, mask }) => {
            let mask = number(mask)?;
            (mask, number(value)? & mask, number(value)? & mask)
        }
        (MatchKind::Lpm, FieldMatch::Lpm { value, prefix_len }) => {
            let mask = prefix_mask(set, field, *prefix_len)?;
            (mask, number(value)? & mask, number(value)? & mask)
        }
        (MatchKind::Range, FieldMatch::Range { lo, hi }) => {
            let (lo, hi) = (number(lo)?, number(hi)?);
            if hi < lo {
                return Err(field_error(
                    set,
                    field,
                    &format!("{lo}..{hi}"),
                    "ends below its start",
                ));
            }
            (full, lo, hi)
        }
        (MatchKind::Optional, FieldMatch::Optional(None)) => (0, 0, 0),
        (MatchKind::Optional, FieldMatch::Optional(Some(v))) => (full, number(v)?, number(v)?),
        (_, other) => {
            let why = format!("is not a match of the field's kind, `{}`", kind_name(kind));
            return Err(field_error(set, field, &field_text(other), &why));
        }
    })
}

/// `kind` as P4 writes it.
pub(super) fn kind_name(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "exact",
        MatchKind::Ternary => "ternary",
        MatchKind::Lpm => "lpm",
        MatchKind::Range => "range",
        MatchKind::Optional => "optional",
    }
}

/// The member a used slot holds.
fn decode(set: &ValueSet, slot: &[u8]) -> Member {
    let word = |at: usize| {
        slot.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_ne_bytes)
    };
    set.fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let at = HEADER + index * FIELD;
            let (mask, lo, hi) = (word(at), word(at + 8), word(at + 16));
            let bytes = |v: u64| bytes(v, field.bit_width);
            match set.match_kind(index) {
                MatchKind::Exact => FieldMatch::Exact(bytes(lo)),
                MatchKind::Ternary => FieldMatch::Ternary {
                    value: bytes(lo),
                    mask: bytes(mask),
                },
                MatchKind::Lpm => FieldMatch::Lpm {
                    value: bytes(lo),
                    prefix_len: mask.count_ones(),
                },
                MatchKind::Range => FieldMatch::Range {
                    lo: bytes(lo),
                    hi: bytes(hi),
                },
                MatchKind::Optional => FieldMatch::Optional((mask != 0).then(|| bytes(lo))),
            }
        })
        .collect()
}

/// The field's value `bytes` (big-endian) as a number that fits its width.
fn number(set: &ValueSet, field: &FieldLayout, bytes: &[u8]) -> Result<u64> {
    let shown = || {
        format!(
            "0x{}",
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        )
    };
    let significant = bytes.iter().skip_while(|b| **b == 0).count();
    let n = (significant <= 8)
        .then(|| bytes.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
        .filter(|n| n & !full_mask(field.bit_width) == 0);
    n.ok_or_else(|| {
        field_error(
            set,
            field,
            &shown(),
            &format!("does not fit in bit<{}>", field.bit_width),
        )
    })
}

/// The mask of the top `prefix_len` bits of the field.
fn prefix_mask(set: &ValueSet, field: &FieldLayout, prefix_len: u32) -> Result<u64> {
    let width = field.bit_width;
    if prefix_len > width {
        return Err(field_error(
            set,
            field,
            &format!("/{prefix_len}"),
            &format!("is longer than the field's {width} bits"),
        ));
    }
    Ok(full_mask(width) & !full_mask(width - prefix_len))
}

/// All `width` low bits set.
fn full_mask(width: u32) -> u64 {
    u64::MAX
        .checked_shr(64u32.saturating_sub(width))
        .filter(|_| width > 0)
        .unwrap_or(0)
}

/// `v` as big-endian bytes of a `width`-bit field.
fn bytes(v: u64, width: u32) -> Vec<u8> {
    let all = v.to_be_bytes();
    all.get(8usize.saturating_sub(value::byte_len(width))..)
        .unwrap_or(&all)
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set of one field of each kind, laid out as the compiler does.
    fn every_kind() -> ValueSet {
        let kinds = [
            MatchKind::Exact,
            MatchKind::Ternary,
            MatchKind::Lpm,
            MatchKind::Range,
            MatchKind::Optional,
        ];
        let fields = (0..kinds.len() as u32)
            .map(|i| FieldLayout {
                name: format!("f{i}"),
                bit_width: 12,
                byte_offset: ValueSet::SLOT_HEADER_BYTES + i * ValueSet::SLOT_FIELD_BYTES,
                byte_len: ValueSet::SLOT_FIELD_BYTES,
                byte_order: p4bpf_layout::ByteOrder::Host,
                signed: false,
            })
            .collect();
        ValueSet {
            name: "p.s".into(),
            map: "p_s".into(),
            size: 4,
            fields,
            key_size: 4,
            match_kinds: kinds.to_vec(),
            index: 0,
        }
    }

    #[test]
    fn a_member_of_every_kind_reads_back_as_written() {
        let set = every_kind();
        let member = vec![
            FieldMatch::Exact(vec![0x0a, 0xbc]),
            FieldMatch::Ternary {
                value: vec![0x0a, 0x00],
                mask: vec![0x0f, 0x00],
            },
            FieldMatch::Lpm {
                value: vec![0x0f, 0x00],
                prefix_len: 4,
            },
            FieldMatch::Range {
                lo: vec![0x00, 0x10],
                hi: vec![0x0f, 0xff],
            },
            FieldMatch::Optional(None),
        ];
        let slot = encode(&set, &member).unwrap_or_default();
        assert_eq!(slot.len(), set.slot_size() as usize);
        assert!(used(&slot));
        assert_eq!(decode(&set, &slot), member);
    }

    #[test]
    fn a_match_of_another_kind_or_width_is_refused_by_name() {
        let set = every_kind();
        let mut member = vec![FieldMatch::Exact(vec![0, 1]); 5];
        member[3] = FieldMatch::Lpm {
            value: vec![0, 0],
            prefix_len: 1,
        };
        let why = encode(&set, &member).err().map(|e| e.to_string());
        assert_eq!(
            why.as_deref(),
            Some("value set `p.s`, field `f3`: `0x0000/1` is not a match of the field's kind, `range`")
        );
        member[3] = FieldMatch::Exact(vec![0x10, 0x00]);
        let why = encode(&set, &member).err().map(|e| e.to_string());
        assert_eq!(
            why.as_deref(),
            Some("value set `p.s`, field `f3`: `0x1000` does not fit in bit<12>")
        );
    }

    #[test]
    fn masks_of_every_width_and_prefix() {
        assert_eq!(full_mask(0), 0);
        assert_eq!(full_mask(3), 0b111);
        assert_eq!(full_mask(64), u64::MAX);
        assert_eq!(bytes(0x5c3, 12), vec![0x05, 0xc3]);
        assert_eq!(bytes(u64::MAX, 64).len(), 8);
    }
}
