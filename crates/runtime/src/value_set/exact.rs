//! An all-exact value set: a hash set whose keys are the members, each
//! field at its place in the key struct, in host byte order (network
//! order when wider than 64 bits, as the program holds it).

use super::text::field_text;
use super::{check_shape, field_error, FieldMatch, Member};
use crate::control;
use crate::error::Result;
use crate::map::{Map, Write};
use crate::value;
use p4bpf_layout::{ByteOrder, ValueSet};

pub(super) fn add(map: &Map, set: &ValueSet, member: &Member) -> Result<()> {
    let key = encode(map, set, member)?;
    map.write(&key, &present(map), Write::Replace)
}

/// Checks and encodes every member, then empties the set and adds them.
pub(super) fn replace(map: &Map, set: &ValueSet, members: &[Member]) -> Result<()> {
    let keys = members
        .iter()
        .map(|m| encode(map, set, m))
        .collect::<Result<Vec<_>>>()?;
    for old in control::keys(map)? {
        map.delete(&old)?;
    }
    for key in keys {
        map.write(&key, &present(map), Write::Replace)?;
    }
    Ok(())
}

pub(super) fn members(map: &Map, set: &ValueSet) -> Result<Vec<Member>> {
    Ok(control::keys(map)?
        .iter()
        .map(|key| decode(set, key))
        .collect())
}

/// The value a member's key maps to.
fn present(map: &Map) -> Vec<u8> {
    vec![1u8; map.value_size() as usize]
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
