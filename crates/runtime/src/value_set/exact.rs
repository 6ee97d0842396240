//! An all-exact value set: a hash set whose keys are the members, each
//! field at its place in the key struct, in host byte order (network
//! order when wider than 64 bits, as the program holds it). A key's
//! value says which halves hold it (bit `h` for half `h`, see `live`).

use super::text::field_text;
use super::{check_shape, field_error, FieldMatch, Member};
use crate::control;
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::value;
use p4bpf_layout::{ByteOrder, ValueSet};
use std::collections::HashSet;

/// Adds `member` to both halves.
pub(super) fn add(map: &Map, set: &ValueSet, member: &Member) -> Result<()> {
    let key = encode(map, set, member)?;
    map.write(&key, &halves_value(map, BOTH), Write::Replace)
}

/// The keys of `members`, every one checked.
pub(super) fn encode_all(map: &Map, set: &ValueSet, members: &[Member]) -> Result<Vec<Vec<u8>>> {
    members.iter().map(|m| encode(map, set, m)).collect()
}

/// Makes `keys` the members of half `half`: each key's bit of that half
/// is set or cleared (one element write each, which the kernel makes
/// whole), and a key in neither half leaves the map.
pub(super) fn write_half(map: &Map, keys: &[Vec<u8>], half: u32) -> Result<()> {
    let bit = 1u8 << half;
    let wanted: HashSet<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut held = HashSet::new();
    for key in control::keys(map)? {
        let halves = halves_of(map, &key)?;
        let now = match wanted.contains(key.as_slice()) {
            true => halves | bit,
            false => halves & !bit,
        };
        if now == 0 {
            map.delete(&key)?;
        } else if now != halves {
            map.write(&key, &halves_value(map, now), Write::Replace)?;
        }
        held.insert(key);
    }
    for key in keys.iter().filter(|k| !held.contains(*k)) {
        map.write(key, &halves_value(map, bit), Write::Replace)?;
    }
    Ok(())
}

/// The members in half `half`.
pub(super) fn members(map: &Map, set: &ValueSet, half: u32) -> Result<Vec<Member>> {
    let mut out = vec![];
    for key in control::keys(map)? {
        if halves_of(map, &key)? >> half & 1 == 1 {
            out.push(decode(set, &key));
        }
    }
    Ok(out)
}

/// A key in both halves.
const BOTH: u8 = 0b11;

/// The value of a key in `halves` (bit `h` for half `h`).
fn halves_value(map: &Map, halves: u8) -> Vec<u8> {
    let mut value = vec![halves];
    value.resize(map.value_size().max(1) as usize, 0);
    value
}

/// The halves `key` is in (none when gone).
fn halves_of(map: &Map, key: &[u8]) -> Result<u8> {
    match map.read(key) {
        Ok(values) => Ok(values.first().and_then(|v| v.first()).copied().unwrap_or(0)),
        Err(RuntimeError::KeyNotFound { .. }) => Ok(0),
        Err(other) => Err(other),
    }
}

fn encode(map: &Map, set: &ValueSet, member: &Member) -> Result<Vec<u8>> {
    check_shape(set, member)?;
    let mut key = vec![0u8; map.key_size() as usize];
    for (field, matched) in set.fields.iter().zip(member) {
        let FieldMatch::Exact(bytes) = matched else {
            return Err(field_error(
                set,
                field,
                &field_text(matched),
                "is not an exact value (the set matches exactly)",
            ));
        };
        let fits = bytes.len() == value::byte_len(field.bit_width);
        let mut bytes = bytes.clone();
        if field.byte_order == ByteOrder::Host {
            bytes.reverse();
        }
        let at = field.byte_offset as usize;
        let slot = key.get_mut(at..at + bytes.len()).filter(|_| fits);
        let slot = slot.ok_or_else(|| {
            field_error(
                set,
                field,
                &field_text(matched),
                &format!("is not a bit<{}> value", field.bit_width),
            )
        })?;
        slot.copy_from_slice(&bytes);
    }
    Ok(key)
}

fn decode(set: &ValueSet, key: &[u8]) -> Member {
    set.fields
        .iter()
        .map(|field| {
            let at = field.byte_offset as usize;
            let n = value::byte_len(field.bit_width);
            let mut bytes = key.get(at..at + n).unwrap_or_default().to_vec();
            if field.byte_order == ByteOrder::Host {
                bytes.reverse();
            }
            FieldMatch::Exact(bytes)
        })
        .collect()
}
