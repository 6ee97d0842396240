//! Encodes a table entry into the bytes of its BPF map key and value, as the
//! pipeline description lays them out: fields placed at their offsets in
//! their byte order, an lpm key preceded by its prefix length, the value an
//! action code followed by the action's parameters. A ternary entry is its
//! masked key plus the mask (each field's `&&&` mask, all ones for exact,
//! the prefix for lpm, zero for a field left out) and its priority in the
//! value. Pure: nothing is written here, so a bad entry fails before any map
//! changes.

use crate::error::{Result, RuntimeError};
use crate::{int_value, value};
use p4bpf_layout::{Action, ByteOrder, FieldLayout, MatchKind, Table, TableStorage};

/// An entry with every name already resolved to a position in the table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntrySpec {
    /// (key field index, text): `v`, `v/prefix` (lpm) or `v&&&mask` (ternary).
    pub keys: Vec<(usize, String)>,
    /// Index into the table's actions.
    pub action: usize,
    /// (parameter index, text).
    pub args: Vec<(usize, String)>,
    pub priority: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedEntry {
    /// The map key (for an lpm trie, with its prefix length in front; for a
    /// ternary table, the masked key struct alone).
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    /// The key struct's mask, for a ternary table.
    pub mask: Option<Vec<u8>>,
    /// (lo, hi) key structs holding each range field's bounds (included),
    /// for a ternary table with range keys; range fields stay zero in
    /// `key` and `mask`.
    pub bounds: Option<(Vec<u8>, Vec<u8>)>,
}

/// The map key and value of `spec` in `table`.
pub fn encode_entry(table: &Table, spec: &EntrySpec) -> Result<EncodedEntry> {
    let action = table
        .actions
        .get(spec.action)
        .ok_or_else(|| bad(table, "no such action"))?;
    if action.default_only {
        return Err(bad(
            table,
            &format!("action `{}` is @defaultonly", action.name),
        ));
    }
    let mut value = encode_action(table, spec.action, &spec.args)?;
    let mut bounds = None;
    let (key, mask) = match table.storage {
        TableStorage::Hash => (exact_key(table, spec)?, None),
        TableStorage::Array => (array_index(table, spec)?, None),
        TableStorage::LpmTrie => (lpm_key(table, spec)?, None),
        TableStorage::Ternary => {
            let (key, mask) = ternary_key(table, spec)?;
            bounds = range_bounds(table, spec)?;
            let priority_offset = table.ternary.as_ref().map(|t| t.priority_offset as usize);
            let priority_offset =
                priority_offset.ok_or_else(|| bad(table, "ternary table without its layout"))?;
            put(
                table,
                &mut value,
                priority_offset,
                &spec.priority.unwrap_or(0).to_ne_bytes(),
            )?;
            (key, Some(mask))
        }
        TableStorage::Keyless => {
            return Err(bad(
                table,
                "the table has no key: only its default action can be set",
            ));
        }
        TableStorage::Const => {
            return Err(bad(
                table,
                "the table's entries are const (compiled into the program) and cannot be changed",
            ));
        }
    };
    Ok(EncodedEntry {
        key,
        value,
        mask,
        bounds,
    })
}

/// The value struct selecting action `action_index` with `args`; also what
/// a default action is stored as.
pub fn encode_action(
    table: &Table,
    action_index: usize,
    args: &[(usize, String)],
) -> Result<Vec<u8>> {
    let action = table
        .actions
        .get(action_index)
        .ok_or_else(|| bad(table, "no such action"))?;
    let mut bytes = vec![0u8; table.value_size as usize];
    put(table, &mut bytes, 0, &action.code.to_ne_bytes())?;
    for (index, param) in action.params.iter().enumerate() {
        let text = args
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, text)| text)
            .ok_or_else(|| param_error(table, action, param, "is missing"))?;
        let parsed = int_value::parse_bits(text.trim(), param.bit_width, param.signed)
            .map_err(|why| param_error(table, action, param, &why))?;
        place(table, &mut bytes, param, &parsed)?;
    }
    Ok(bytes)
}

fn exact_key(table: &Table, spec: &EntrySpec) -> Result<Vec<u8>> {
    let mut key = vec![0u8; table.key_size as usize];
    for (index, field) in table.keys.iter().enumerate() {
        let text = key_text(table, spec, index)?;
        let parsed = parse_field(table, &field.field, text)?;
        place(table, &mut key, &field.field, &parsed)?;
    }
    Ok(key)
}

fn array_index(table: &Table, spec: &EntrySpec) -> Result<Vec<u8>> {
    let [field] = table.keys.as_slice() else {
        return Err(bad(table, "an array table has exactly one key"));
    };
    let parsed = parse_field(table, &field.field, key_text(table, spec, 0)?)?;
    let index = parsed.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
    if index >= u64::from(table.size) {
        return Err(field_error(
            table,
            &field.field,
            &format!("index {index} is beyond the table size {}", table.size),
        ));
    }
    Ok((index as u32).to_ne_bytes().to_vec())
}

fn lpm_key(table: &Table, spec: &EntrySpec) -> Result<Vec<u8>> {
    let mut key = vec![0u8; table.key_size as usize];
    let mut prefix_len = 0u32;
    for (index, field) in table.keys.iter().enumerate() {
        let layout = &field.field;
        let text = key_text(table, spec, index)?;
        if field.match_kind != MatchKind::Lpm {
            let parsed = parse_field(table, layout, text)?;
            place(table, &mut key, layout, &parsed)?;
            continue;
        }
        if layout.byte_order != ByteOrder::Network {
            return Err(field_error(
                table,
                layout,
                "an lpm field must be stored in network byte order",
            ));
        }
        let (value_text, prefix) = match text.split_once('/') {
            Some((v, p)) => {
                let prefix = p
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|p| *p <= layout.bit_width);
                let prefix = prefix.ok_or_else(|| {
                    field_error(table, layout, &format!("bad prefix length `/{p}`"))
                })?;
                (v, prefix)
            }
            None => (text, layout.bit_width),
        };
        let mut masked = parse_field(table, layout, value_text)?;
        keep_prefix(&mut masked, prefix, layout.bit_width);
        place(table, &mut key, layout, &masked)?;
        // Bits before the field, then its unused top bits, then the prefix
        // (`place` has checked the field lies inside the key).
        let spare = (8 * layout.byte_len).saturating_sub(layout.bit_width);
        prefix_len = 8 * layout.byte_offset + spare + prefix;
    }
    let mut full = Vec::with_capacity(4 + key.len());
    full.extend_from_slice(&prefix_len.to_ne_bytes());
    full.extend(key);
    Ok(full)
}

/// Clear the bits of big-endian `value` (of `bit_width` bits) past its
/// first `prefix` (as `value::and` with `value::prefix_mask`, in place).
fn keep_prefix(value: &mut [u8], prefix: u32, bit_width: u32) {
    let spare = (8 * value.len() as u32).saturating_sub(bit_width);
    for (index, byte) in value.iter_mut().enumerate() {
        let kept = (spare + prefix).saturating_sub(8 * index as u32).min(8);
        *byte &= !(0xffu8.checked_shr(kept).unwrap_or(0));
    }
}

/// The masked key and its mask.
fn ternary_key(table: &Table, spec: &EntrySpec) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut key = vec![0u8; table.key_size as usize];
    let mut mask = vec![0u8; table.key_size as usize];
    for (index, field) in table.keys.iter().enumerate() {
        let layout = &field.field;
        let given = spec
            .keys
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, text)| text.trim());
        let (value_text, field_mask) = match (given, field.match_kind) {
            // A wildcard: value and mask stay zero.
            // A wildcard (or a range, kept in the bounds): value and mask stay zero.
            (None, MatchKind::Ternary | MatchKind::Lpm | MatchKind::Optional)
            | (_, MatchKind::Range) => continue,
            (None, _) => return Err(field_error(table, layout, "is missing")),
            // BMv2's `0x****0101`: `*` digits are don't-care digits.
            (Some(text), MatchKind::Ternary) if text.contains('*') => {
                let (field_value, field_mask) =
                    value::parse_wildcard_digits(text, layout.bit_width)
                        .map_err(|why| field_error(table, layout, &why))?;
                place(
                    table,
                    &mut key,
                    layout,
                    &value::and(&field_value, &field_mask),
                )?;
                place(table, &mut mask, layout, &field_mask)?;
                continue;
            }
            (Some(text), MatchKind::Ternary) => match text.split_once("&&&") {
                Some((v, m)) => (v, parse_field(table, layout, m)?),
                None => (text, value::prefix_mask(layout.bit_width, layout.bit_width)),
            },
            (Some(text), MatchKind::Lpm) => match text.split_once('/') {
                Some((v, p)) => {
                    let prefix = p
                        .trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|p| *p <= layout.bit_width);
                    let prefix = prefix.ok_or_else(|| {
                        field_error(table, layout, &format!("bad prefix length `/{p}`"))
                    })?;
                    (v, value::prefix_mask(prefix, layout.bit_width))
                }
                None => (text, value::prefix_mask(layout.bit_width, layout.bit_width)),
            },
            (Some(text), _) => (text, value::prefix_mask(layout.bit_width, layout.bit_width)),
        };
        let parsed = parse_field(table, layout, value_text)?;
        place(table, &mut key, layout, &value::and(&parsed, &field_mask))?;
        place(table, &mut mask, layout, &field_mask)?;
    }
    Ok((key, mask))
}

/// The (lo, hi) key structs of a table with range keys: `LO..HI`, or one
/// value for both; a range field left out spans every value.
fn range_bounds(table: &Table, spec: &EntrySpec) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    if !table.keys.iter().any(|k| k.match_kind == MatchKind::Range) {
        return Ok(None);
    }
    let mut lo = vec![0u8; table.key_size as usize];
    let mut hi = vec![0u8; table.key_size as usize];
    for (index, field) in table.keys.iter().enumerate() {
        let layout = &field.field;
        if field.match_kind != MatchKind::Range {
            continue;
        }
        let given = spec.keys.iter().find(|(i, _)| *i == index);
        let (low, high) = match given.map(|(_, text)| text.trim()) {
            None => (
                value::prefix_mask(0, layout.bit_width),
                value::prefix_mask(layout.bit_width, layout.bit_width),
            ),
            Some(text) => {
                let (l, h) = text.split_once("..").unwrap_or((text, text));
                let (mut low, mut high) = (
                    parse_field(table, layout, l)?,
                    parse_field(table, layout, h)?,
                );
                // The data path compares an int's key with its sign bit flipped.
                if layout.signed {
                    int_value::flip_sign(&mut low, layout.bit_width);
                    int_value::flip_sign(&mut high, layout.bit_width);
                }
                (low, high)
            }
        };
        // Both are big-endian and of the field's length.
        if high < low {
            return Err(field_error(
                table,
                layout,
                &format!(
                    "the range `{}` ends below its start",
                    given.map_or("", |(_, t)| t)
                ),
            ));
        }
        place(table, &mut lo, layout, &low)?;
        place(table, &mut hi, layout, &high)?;
    }
    Ok(Some((lo, hi)))
}

fn key_text<'a>(table: &Table, spec: &'a EntrySpec, index: usize) -> Result<&'a str> {
    let found = spec
        .keys
        .iter()
        .find(|(i, _)| *i == index)
        .map(|(_, text)| text.as_str());
    match (found, table.keys.get(index)) {
        (Some(text), _) => Ok(text),
        // A missing lpm key matches everything.
        (None, Some(field)) if field.match_kind == MatchKind::Lpm => Ok("0/0"),
        (None, Some(field)) => Err(field_error(table, &field.field, "is missing")),
        (None, None) => Err(bad(table, "no such key field")),
    }
}

fn parse_field(table: &Table, field: &FieldLayout, text: &str) -> Result<Vec<u8>> {
    int_value::parse_bits(text.trim(), field.bit_width, field.signed)
        .map_err(|why| field_error(table, field, &why))
}

/// Write big-endian `value` into `field` of `bytes`, in the field's order.
fn place(table: &Table, bytes: &mut [u8], field: &FieldLayout, value: &[u8]) -> Result<()> {
    let length = field.byte_len as usize;
    let Some(padding) = length.checked_sub(value.len()) else {
        return Err(field_error(
            table,
            field,
            "the layout's byte length is shorter than its bit width",
        ));
    };
    let offset = field.byte_offset as usize;
    let slot = bytes
        .get_mut(offset..offset + length)
        .ok_or_else(|| outside(table))?;
    let (zeros, data) = slot.split_at_mut(padding);
    zeros.fill(0);
    data.copy_from_slice(value);
    if field.byte_order == ByteOrder::Host {
        slot.reverse();
    }
    Ok(())
}

fn put(table: &Table, bytes: &mut [u8], offset: usize, data: &[u8]) -> Result<()> {
    bytes
        .get_mut(offset..offset + data.len())
        .map(|slot| slot.copy_from_slice(data))
        .ok_or_else(|| outside(table))
}

fn outside(table: &Table) -> RuntimeError {
    RuntimeError::BadObject(format!(
        "table `{}`: a field lies outside its struct",
        table.name
    ))
}

fn bad(table: &Table, why: &str) -> RuntimeError {
    RuntimeError::Value(format!("table `{}`: {why}", table.name))
}

fn field_error(table: &Table, field: &FieldLayout, why: &str) -> RuntimeError {
    RuntimeError::Value(format!(
        "table `{}`, key field `{}`: {why}",
        table.name, field.name
    ))
}

fn param_error(table: &Table, action: &Action, param: &FieldLayout, why: &str) -> RuntimeError {
    RuntimeError::Value(format!(
        "table `{}`, action `{}`, parameter `{}`: {why}",
        table.name, action.name, param.name
    ))
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;

    #[test]
    fn a_prefix_kept_in_place_is_the_prefix_mask() {
        for (width, len) in [(32, 4), (12, 2), (48, 6), (7, 1)] {
            let value = value::prefix_mask(width, width);
            for prefix in 0..=width {
                let mut kept = value.clone();
                keep_prefix(&mut kept, prefix, width);
                let mask = value::prefix_mask(prefix, width);
                assert_eq!(kept, value::and(&value, &mask), "{prefix}/{width}");
                assert_eq!(kept.len(), len);
            }
        }
    }
    use p4bpf_layout::KeyField;

    fn field(
        name: &str,
        bit_width: u32,
        byte_offset: u32,
        byte_len: u32,
        byte_order: ByteOrder,
    ) -> FieldLayout {
        FieldLayout {
            name: name.into(),
            bit_width,
            byte_offset,
            byte_len,
            byte_order,
            signed: false,
        }
    }

    fn table(storage: TableStorage, kind: MatchKind) -> Table {
        Table {
            name: "pipe.t".into(),
            map: "pipe_t".into(),
            storage,
            size: 16,
            keys: vec![KeyField {
                field: field("hdr.ipv4.srcAddr", 32, 0, 4, ByteOrder::Network),
                match_kind: kind,
            }],
            key_size: 4,
            value_size: 8,
            actions: vec![Action {
                name: "pipe.set".into(),
                code: 3,
                params: vec![field("port", 16, 4, 2, ByteOrder::Host)],
                default_only: false,
                table_only: false,
            }],
            default_map: None,
            default_slot: 0,
            ternary: None,
        }
    }

    fn spec(key: &str, port: &str) -> EntrySpec {
        EntrySpec {
            keys: vec![(0, key.into())],
            action: 0,
            args: vec![(0, port.into())],
            priority: None,
        }
    }

    #[test]
    fn exact_key_and_value_bytes() {
        let entry = encode_entry(
            &table(TableStorage::Hash, MatchKind::Exact),
            &spec("10.1.152.69", "0x0102"),
        );
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(entry.key, vec![10, 1, 152, 69]);
        assert_eq!(entry.value, vec![3, 0, 0, 0, 0x02, 0x01, 0, 0]);
    }

    #[test]
    fn lpm_key_has_prefix_length_and_masked_value() {
        let entry = encode_entry(
            &table(TableStorage::LpmTrie, MatchKind::Lpm),
            &spec("10.1.255.255/16", "1"),
        );
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(entry.key, vec![16, 0, 0, 0, 10, 1, 0, 0]);
    }

    #[test]
    fn ternary_key_is_masked_and_priority_lands_in_the_value() {
        let mut t = table(TableStorage::Ternary, MatchKind::Ternary);
        t.ternary = Some(p4bpf_layout::TernaryLayout {
            groups_map: "m".into(),
            max_groups: 4,
            groups_offset: 4,
            group_size: 8,
            filter_bits_offset: 4,
            filters_map: "f".into(),
            filter_words: 8,
            bucket_key_offset: 4,
            bucket_key_size: 8,
            bucket_size: 4 + 8 * 16,
            bucket_rules: 8,
            rules_offset: 4,
            rule_size: 16,
            rule_mask_offset: 4,
            rule_bounds_offset: None,
            rule_value_offset: 8,
            priority_offset: 4,
            partition: vec![],
            cells: None,
        });
        t.actions[0].params[0].byte_offset = 8;
        t.value_size = 12;
        let entry = encode_entry(
            &t,
            &EntrySpec {
                priority: Some(9),
                ..spec("10.1.2.3&&&255.255.0.0", "5")
            },
        );
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(entry.key, vec![10, 1, 0, 0]);
        assert_eq!(entry.mask, Some(vec![255, 255, 0, 0]));
        assert_eq!(entry.value, vec![3, 0, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0]);
        let wildcard = encode_entry(
            &t,
            &EntrySpec {
                keys: vec![],
                ..spec("1", "5")
            },
        );
        assert_eq!(wildcard.map(|e| e.mask), Ok(Some(vec![0, 0, 0, 0])));
    }

    #[test]
    fn errors_name_table_field_and_value() {
        let t = table(TableStorage::Hash, MatchKind::Exact);
        let too_wide = encode_entry(&t, &spec("0x1ffffffff", "1"))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            too_wide.contains("pipe.t")
                && too_wide.contains("hdr.ipv4.srcAddr")
                && too_wide.contains("0x1ffffffff")
        );
        let missing = encode_entry(
            &t,
            &EntrySpec {
                args: vec![(0, "1".into())],
                ..EntrySpec::default()
            },
        );
        assert!(missing
            .map(|_| ())
            .unwrap_err()
            .to_string()
            .contains("is missing"));
        let bad_param = encode_entry(&t, &spec("1", "70000"))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(bad_param.contains("parameter `port`"));
        let lpm = table(TableStorage::LpmTrie, MatchKind::Lpm);
        assert!(encode_entry(&lpm, &spec("1/33", "1")).is_err());
    }
}
