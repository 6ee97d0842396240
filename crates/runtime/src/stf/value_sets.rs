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
use p4bpf_layout::ByteOrder;

pub fn parse(rest: &str) -> std::result::Result<Command, String> {
    match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
        [value_set, value] => Ok(Command::ValueSetAdd {
            value_set: value_set.to_string(),
            value: value.to_string(),
        }),
        _ => Err("usage: pvs_add VALUE_SET VALUE".into()),
    }
}

/// Makes `text` a member of value set `name`.
pub fn add(pipeline: &impl PacketTarget, name: &str, text: &str) -> Result<()> {
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
