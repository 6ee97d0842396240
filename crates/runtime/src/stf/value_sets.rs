//! BMv2's parser value set command in STF, `pvs_add NAME VALUE...` (as its
//! runtime CLI names it): the member VALUE... joins value set NAME, its
//! dotted P4 name (`IngressParserImpl.pvs`) or its map's name
//! (`IngressParserImpl_pvs`, as PSA-eBPF's control plane names it). The
//! values are one per member field, or for an all-exact set its fields'
//! values concatenated; `crate::value_set` says how each kind is written.

use super::parse::Command;
use crate::error::Result;
use crate::packet_target::PacketTarget;
use crate::value_set;

pub fn parse(rest: &str) -> std::result::Result<Command, String> {
    match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
        [value_set, values @ ..] if !values.is_empty() => Ok(Command::ValueSetAdd {
            value_set: value_set.to_string(),
            value: values.join(" "),
        }),
        _ => Err("usage: pvs_add VALUE_SET VALUE...".into()),
    }
}

/// Makes the member `text` writes a member of value set `name`.
pub fn add(pipeline: &impl PacketTarget, name: &str, text: &str) -> Result<()> {
    let set = value_set::find(pipeline.description(), name)?;
    let texts: Vec<&str> = text.split_whitespace().collect();
    let member = value_set::parse_member(set, &texts)?;
    value_set::add(pipeline, set, &member)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pvs_add_takes_a_value_set_and_its_values() {
        assert_eq!(
            parse("IngressParserImpl.pvs 10.0.0.1"),
            Ok(Command::ValueSetAdd {
                value_set: "IngressParserImpl.pvs".into(),
                value: "10.0.0.1".into(),
            })
        );
        assert_eq!(
            parse("p.pairs 0x1&&&0x3  10..20"),
            Ok(Command::ValueSetAdd {
                value_set: "p.pairs".into(),
                value: "0x1&&&0x3 10..20".into(),
            })
        );
        assert!(parse("pvs").is_err());
    }
}
