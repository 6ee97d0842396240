//! BMv2's parser value set command in STF, `pvs_add NAME VALUE` (as its
//! runtime CLI names it): VALUE becomes a member of value set NAME, its
//! dotted P4 name (`IngressParserImpl.pvs`) or its map's name
//! (`IngressParserImpl_pvs`, as PSA-eBPF's control plane names it). A
//! member is a key of the value set's hash map, in host byte order (in
//! network order when wider than 64 bits, as the program holds it).

use super::parse::Command;
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::packet_target::PacketTarget;
use crate::value;
use p4bpf_layout::{ByteOrder, FieldLayout};

pub fn parse(rest: &str) -> std::result::Result<Command, String> {
    match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
        [value_set, value] => Ok(Command::ValueSetAdd {
            value_set: value_set.to_string(),
            value: value.to_string(),
        }),
        _ => Err("usage: pvs_add VALUE_SET VALUE".into()),
    }
}

/// Makes `text` a member of value set `name`. A struct value set's member
/// is its fields' values concatenated in order, as BMv2 takes it.
pub fn add(pipeline: &impl PacketTarget, name: &str, text: &str) -> Result<()> {
    let fields = value_set_fields(pipeline, name)?;
    if fields.len() > 1 {
        return add_struct(pipeline, name, text, &fields);
    }
    let (map, width, order) = value_set_map(pipeline, name)?;
    let mut key = value::parse(text, width)
        .map_err(|why| RuntimeError::Value(format!("value set `{name}`: {why}")))?;
    if order == ByteOrder::Host {
        key.reverse(); // big-endian text, host-order key
    }
    key.resize(map.key_size() as usize, 0);
    let member = vec![1u8; map.value_size() as usize];
    map.write(&key, &member, Write::Replace)
}

fn add_struct(
    pipeline: &impl PacketTarget,
    name: &str,
    text: &str,
    fields: &[FieldLayout],
) -> Result<()> {
    let (map, width, _) = value_set_map(pipeline, name)?;
    let value = value::parse(text, width)
        .map_err(|why| RuntimeError::Value(format!("value set `{name}`: {why}")))?;
    let mut key = vec![0u8; map.key_size() as usize];
    let mut start = 0;
    for field in fields {
        let mut bytes = bits(&value, width, start, field.bit_width);
        start += field.bit_width;
        if field.byte_order == ByteOrder::Host {
            bytes.reverse();
        }
        let at = field.byte_offset as usize;
        let slot = key.get_mut(at..at + bytes.len()).ok_or_else(|| {
            RuntimeError::Value(format!(
                "value set `{name}`: member field `{}` lies outside the key",
                field.name
            ))
        })?;
        slot.copy_from_slice(&bytes);
    }
    let member = vec![1u8; map.value_size() as usize];
    map.write(&key, &member, Write::Replace)
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

/// The fields of value set `name`'s members.
fn value_set_fields(pipeline: &impl PacketTarget, name: &str) -> Result<Vec<FieldLayout>> {
    let sets = &pipeline.description().value_sets;
    Ok(sets
        .iter()
        .find(|v| v.name == name || v.map == name)
        .map(|v| v.fields.clone())
        .unwrap_or_default())
}

/// The value set's map, the width of its members and their byte order.
fn value_set_map(pipeline: &impl PacketTarget, name: &str) -> Result<(Map, u32, ByteOrder)> {
    let sets = &pipeline.description().value_sets;
    let Some(set) = sets.iter().find(|v| v.name == name || v.map == name) else {
        let known: Vec<&str> = sets.iter().map(|v| v.name.as_str()).collect();
        return Err(RuntimeError::Value(format!(
            "no value set `{name}` (the program has: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    };
    let width = set.fields.iter().map(|f| f.bit_width).sum();
    let order = set.fields.first().map_or(ByteOrder::Host, |f| f.byte_order);
    Ok((pipeline.map(&set.map)?, width, order))
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

    #[test]
    fn pvs_add_takes_a_value_set_and_one_value() {
        assert_eq!(
            parse("IngressParserImpl.pvs 10.0.0.1"),
            Ok(Command::ValueSetAdd {
                value_set: "IngressParserImpl.pvs".into(),
                value: "10.0.0.1".into(),
            })
        );
        assert!(parse("pvs").is_err());
        assert!(parse("pvs 1 2").is_err());
    }
}
