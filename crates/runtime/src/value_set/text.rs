//! A member as an operator or an STF file writes it: one text per field,
//! `VALUE` (exact), `VALUE&&&MASK` or `0x**01` digits (ternary),
//! `VALUE/PREFIX` (lpm), `LO..HI` (range), `*` (any value, in a field
//! that is not exact); a plain value fits every kind. An all-exact struct
//! set also takes its fields' values concatenated in one, as BMv2's
//! `pvs_add` does.

use super::slots::kind_name;
use super::{field_error, FieldMatch, Member};
use crate::error::{Result, RuntimeError};
use crate::value;
use p4bpf_layout::{FieldLayout, MatchKind, ValueSet};

/// The member `texts` write in `set`.
pub fn parse_member(set: &ValueSet, texts: &[&str]) -> Result<Member> {
    if let [whole] = texts {
        if set.fields.len() > 1 && !set.scans() {
            return concatenated(set, whole);
        }
    }
    if texts.len() != set.fields.len() {
        let names: Vec<&str> = set.fields.iter().map(|f| f.name.as_str()).collect();
        return Err(RuntimeError::Value(format!(
            "value set `{}` takes one value per field ({}), {} given",
            set.name,
            names.join(", "),
            texts.len()
        )));
    }
    set.fields
        .iter()
        .zip(texts)
        .enumerate()
        .map(|(index, (field, text))| parse_field(set, field, set.match_kind(index), text))
        .collect()
}

fn parse_field(
    set: &ValueSet,
    field: &FieldLayout,
    kind: MatchKind,
    text: &str,
) -> Result<FieldMatch> {
    let width = field.bit_width;
    let parse = |t: &str| {
        value::parse(t.trim(), width).map_err(|why| {
            let at = format!("value set `{}`, field `{}`", set.name, field.name);
            RuntimeError::Value(format!("{at}: {why}"))
        })
    };
    if text == "*" {
        return match kind {
            MatchKind::Ternary => Ok(FieldMatch::Ternary {
                value: parse("0")?,
                mask: parse("0")?,
            }),
            MatchKind::Lpm => Ok(FieldMatch::Lpm {
                value: parse("0")?,
                prefix_len: 0,
            }),
            MatchKind::Range => Ok(FieldMatch::Range {
                lo: parse("0")?,
                hi: value::prefix_mask(width, width),
            }),
            MatchKind::Optional => Ok(FieldMatch::Optional(None)),
            MatchKind::Exact => Err(field_error(
                set,
                field,
                text,
                "is a wildcard, but the field is exact",
            )),
        };
    }
    match kind {
        MatchKind::Ternary if text.contains("&&&") => {
            let (v, m) = text.split_once("&&&").unwrap_or((text, ""));
            Ok(FieldMatch::Ternary {
                value: parse(v)?,
                mask: parse(m)?,
            })
        }
        MatchKind::Ternary if text.contains('*') => {
            let (value, mask) = value::parse_wildcard_digits(text, width)
                .map_err(|why| field_error(set, field, text, &why))?;
            Ok(FieldMatch::Ternary { value, mask })
        }
        MatchKind::Lpm if text.contains('/') => {
            let (v, p) = text.split_once('/').unwrap_or((text, ""));
            let prefix_len = p.trim().parse::<u32>().ok().filter(|p| *p <= width);
            let prefix_len = prefix_len.ok_or_else(|| {
                field_error(
                    set,
                    field,
                    text,
                    &format!("has a prefix length that is not 0..={width}"),
                )
            })?;
            Ok(FieldMatch::Lpm {
                value: parse(v)?,
                prefix_len,
            })
        }
        MatchKind::Range if text.contains("..") => {
            let (lo, hi) = text.split_once("..").unwrap_or((text, text));
            Ok(FieldMatch::Range {
                lo: parse(lo)?,
                hi: parse(hi)?,
            })
        }
        MatchKind::Optional => Ok(FieldMatch::Optional(Some(parse(text)?))),
        MatchKind::Exact if ["&&&", "/", ".."].iter().any(|s| text.contains(s)) => {
            Err(field_error(
                set,
                field,
                text,
                &format!(
                    "is not an exact value (the field's match kind is `{}`)",
                    kind_name(kind)
                ),
            ))
        }
        _ => Ok(FieldMatch::Exact(parse(text)?)),
    }
}

/// `member` written as [`parse_member`] reads it, one text per field.
pub fn member_text(member: &Member) -> Vec<String> {
    member.iter().map(field_text).collect()
}

/// One field's match as [`parse_member`] reads it.
pub(super) fn field_text(field: &FieldMatch) -> String {
    let hex = |b: &[u8]| {
        let digits: String = b.iter().map(|x| format!("{x:02x}")).collect();
        format!("0x{digits}")
    };
    match field {
        FieldMatch::Exact(v) | FieldMatch::Optional(Some(v)) => hex(v),
        FieldMatch::Ternary { value, mask } => format!("{}&&&{}", hex(value), hex(mask)),
        FieldMatch::Lpm { value, prefix_len } => format!("{}/{prefix_len}", hex(value)),
        FieldMatch::Range { lo, hi } => format!("{}..{}", hex(lo), hex(hi)),
        FieldMatch::Optional(None) => "*".to_string(),
    }
}

/// BMv2's form: the fields' values concatenated, cut into the fields.
fn concatenated(set: &ValueSet, text: &str) -> Result<Member> {
    let width: u32 = set.fields.iter().map(|f| f.bit_width).sum();
    let whole = value::parse(text, width)
        .map_err(|why| RuntimeError::Value(format!("value set `{}`: {why}", set.name)))?;
    let mut start = 0;
    Ok(set
        .fields
        .iter()
        .map(|field| {
            let part = bits(&whole, width, start, field.bit_width);
            start += field.bit_width;
            FieldMatch::Exact(part)
        })
        .collect())
}

/// `count` bits of the `width`-bit big-endian `value`, `start` bits from
/// its top, as big-endian bytes.
fn bits(value: &[u8], width: u32, start: u32, count: u32) -> Vec<u8> {
    let mut out = vec![0u8; value::byte_len(count)];
    let bit_at = |bytes: &[u8], from_low: u32| {
        let byte = bytes.len().checked_sub(1 + from_low as usize / 8);
        byte.and_then(|b| bytes.get(b))
            .map_or(0, |b| b >> (from_low % 8) & 1)
    };
    for i in 0..count {
        let Some(from_low) = width.checked_sub(1 + start + i) else {
            break;
        };
        let bit = bit_at(value, from_low);
        let to = count - 1 - i;
        let len = out.len();
        if let Some(b) = out.get_mut(len - 1 - to as usize / 8) {
            *b |= bit << (to % 8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_struct_member_is_cut_into_its_fields_bits() {
        // 0xa5c3 as bit<4> ++ bit<12>; then bit<3> ++ bit<70> at odd places.
        assert_eq!(bits(&[0xa5, 0xc3], 16, 0, 4), vec![0x0a]);
        assert_eq!(bits(&[0xa5, 0xc3], 16, 4, 12), vec![0x05, 0xc3]);
        let mut wide = vec![0xe0]; // 0b111 then 70 bits of 0..01
        wide.extend([0u8; 8]);
        wide.push(0x01);
        assert_eq!(bits(&wide, 80, 0, 3), vec![0x07]);
        assert_eq!(bits(&wide, 80, 3, 77).last(), Some(&0x01));
    }
}
