//! Map keys and values back to P4 terms for `get` and `dump`: each key
//! field as text the value parser reads back (a MAC for 48 bits, dotted
//! IPv4 for a 32-bit field named like an address, decimal up to 64 bits,
//! else hex), with `/prefix` for lpm, `&&&mask` for ternary, `lo..hi` for range;
//! the action by its code and its parameters by name.

use crate::error::{Result, RuntimeError};
use crate::map::u32_at;
use p4bpf_layout::{ByteOrder, FieldLayout, KeyField, MatchKind, Table, TableStorage};

/// One table entry in P4 terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub keys: Vec<(String, String)>,
    pub action: String,
    pub params: Vec<(String, String)>,
    pub priority: Option<u32>,
}

/// `map_key` and `value` of `table` (`mask`: the ternary slot's mask).
pub fn entry(table: &Table, map_key: &[u8], value: &[u8], mask: Option<&[u8]>) -> Result<Entry> {
    let mut keys = Vec::new();
    match table.storage {
        TableStorage::Array => {
            let index = u32_at(map_key, 0);
            if let Some(field) = table.keys.first() {
                keys.push((field.field.name.clone(), index.to_string()));
            }
        }
        TableStorage::LpmTrie => {
            let prefix_len = u32_at(map_key, 0);
            let key = map_key.get(4..).unwrap_or_default();
            for field in &table.keys {
                let layout = &field.field;
                let mut text = render_key(&field_bytes(key, layout), field);
                if field.match_kind == MatchKind::Lpm {
                    let spare = (8 * layout.byte_len).saturating_sub(layout.bit_width);
                    let prefix = prefix_len.saturating_sub(8 * layout.byte_offset + spare);
                    text = format!("{text}/{}", prefix.min(layout.bit_width));
                }
                keys.push((layout.name.clone(), text));
            }
        }
        TableStorage::Ternary => {
            let offset = table
                .ternary
                .as_ref()
                .map_or(0, |t| t.bucket_key_offset as usize);
            let key = map_key.get(offset..).unwrap_or_default();
            let mask = mask.unwrap_or_default();
            for field in &table.keys {
                let layout = &field.field;
                let bits = field_bytes(mask, layout);
                if bits.iter().all(|b| *b == 0) {
                    continue;
                }
                let text = render(&field_bytes(key, layout), layout);
                let full = bits.iter().map(|b| b.count_ones()).sum::<u32>() == layout.bit_width;
                let text = match field.match_kind {
                    _ if full => render_key(&field_bytes(key, layout), field),
                    MatchKind::Lpm => {
                        format!(
                            "{text}/{}",
                            bits.iter().map(|b| b.count_ones()).sum::<u32>()
                        )
                    }
                    _ => format!("{text}&&&{}", render(&bits, layout)),
                };
                keys.push((layout.name.clone(), text));
            }
        }
        TableStorage::Hash | TableStorage::Keyless | TableStorage::Const => {
            for field in &table.keys {
                let layout = &field.field;
                let text = render_key(&field_bytes(map_key, layout), field);
                keys.push((layout.name.clone(), text));
            }
        }
    }
    let (action, params) = action(table, value)?;
    let priority = table
        .ternary
        .as_ref()
        .map(|t| u32_at(value, t.priority_offset as usize));
    Ok(Entry {
        keys,
        action,
        params,
        priority,
    })
}

/// The range fields of a rule's bounds, as `LO..HI` (one value when
/// `lo == hi`); a range spanning every value is left out, as a wildcard.
pub fn ranges(table: &Table, lo: &[u8], hi: &[u8]) -> Vec<(String, String)> {
    let mut keys = Vec::new();
    for field in table
        .keys
        .iter()
        .filter(|k| k.match_kind == MatchKind::Range)
    {
        let layout = &field.field;
        let (mut low, mut high) = (field_bytes(lo, layout), field_bytes(hi, layout));
        let ones = high.iter().map(|b| b.count_ones()).sum::<u32>();
        if low.iter().all(|b| *b == 0) && ones == layout.bit_width {
            continue;
        }
        // An int's bounds are kept with the sign bit flipped (`entry.rs`).
        if layout.signed {
            crate::int_value::flip_sign(&mut low, layout.bit_width);
            crate::int_value::flip_sign(&mut high, layout.bit_width);
        }
        let text = if low == high {
            render_key(&low, field)
        } else {
            format!("{}..{}", render_key(&low, field), render_key(&high, field))
        };
        keys.push((layout.name.clone(), text));
    }
    keys
}

/// The action a value struct selects, with its parameters.
pub fn action(table: &Table, value: &[u8]) -> Result<(String, Vec<(String, String)>)> {
    let code = u32_at(value, 0);
    let action = table
        .actions
        .iter()
        .find(|a| a.code == code)
        .ok_or_else(|| {
            RuntimeError::BadObject(format!(
                "table `{}` holds unknown action code {code}",
                table.name
            ))
        })?;
    let params = action
        .params
        .iter()
        .map(|p| (p.name.clone(), render_number(&field_bytes(value, p), p)))
        .collect();
    Ok((action.name.clone(), params))
}

/// The field's bytes, most significant first.
fn field_bytes(bytes: &[u8], field: &FieldLayout) -> Vec<u8> {
    let start = field.byte_offset as usize;
    let mut out = bytes
        .get(start..start + field.byte_len as usize)
        .unwrap_or_default()
        .to_vec();
    if field.byte_order == ByteOrder::Host {
        out.reverse();
    }
    out
}

/// The value of `field` in `bytes` (a struct holding it), as text.
pub fn field_text(bytes: &[u8], field: &FieldLayout) -> String {
    render(&field_bytes(bytes, field), field)
}

/// A key field's value (not a mask or a partial ternary or lpm value, which
/// are bits) as text: an int's as a signed number.
fn render_key(bytes: &[u8], key: &KeyField) -> String {
    match key.match_kind {
        MatchKind::Exact | MatchKind::Optional | MatchKind::Range => {
            render_number(bytes, &key.field)
        }
        MatchKind::Ternary | MatchKind::Lpm => render(bytes, &key.field),
    }
}

/// A number's text: an `int<W>`'s signed (`-5`), a bit string's as `render`.
fn render_number(bytes: &[u8], field: &FieldLayout) -> String {
    match field.signed {
        true => crate::int_value::show(bytes, field.bit_width),
        false => render(bytes, field),
    }
}

fn render(bytes: &[u8], field: &FieldLayout) -> String {
    // A field may sit in a wider C integer: keep its own bytes.
    let own = bytes
        .len()
        .saturating_sub(crate::value::byte_len(field.bit_width));
    let bytes = bytes.get(own..).unwrap_or_default();
    let name = field.name.to_ascii_lowercase();
    let address = name.contains("addr") || name.contains("ip");
    match (field.bit_width, bytes) {
        (48, [a, b, c, d, e, f]) => format!("{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{f:02x}"),
        (32, [a, b, c, d]) if address => format!("{a}.{b}.{c}.{d}"),
        (1..=64, _) => {
            let value = bytes.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
            // A narrow signed value sits sign-extended in its holder.
            (value & (u64::MAX >> (64 - field.bit_width))).to_string()
        }
        _ => format!(
            "0x{}",
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_values_read_back() {
        let field = |name: &str, bit_width: u32| FieldLayout {
            name: name.into(),
            bit_width,
            byte_offset: 0,
            byte_len: 0,
            byte_order: ByteOrder::Network,
            signed: false,
        };
        for (bytes, name, width, shown) in [
            (vec![10, 0, 0, 1], "dstAddr", 32, "10.0.0.1"),
            (vec![0, 0, 0, 7], "port", 32, "7"),
            (
                vec![0, 0, 0, 0x1b, 0x21, 3, 4, 5],
                "mac",
                48,
                "00:1b:21:03:04:05",
            ),
            (vec![1, 2], "id", 16, "258"),
            (
                vec![0xff; 16],
                "x",
                128,
                "0xffffffffffffffffffffffffffffffff",
            ),
        ] {
            let text = render(&bytes, &field(name, width));
            assert_eq!(text, shown);
            let parsed = crate::value::parse(&text, width).ok();
            let own = bytes.len() - crate::value::byte_len(width);
            assert_eq!(parsed.as_deref(), bytes.get(own..), "{text}");
        }
    }

    #[test]
    fn a_sign_extended_narrow_value_shows_its_own_bits() {
        let n = FieldLayout {
            name: "n".into(),
            bit_width: 4,
            byte_offset: 0,
            byte_len: 1,
            byte_order: ByteOrder::Network,
            signed: false,
        };
        assert_eq!(render(&[0xfd], &n), "13");
    }
}
