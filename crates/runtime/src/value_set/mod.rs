//! A parser value set's members as the control plane writes and reads
//! them (STF `pvs_add`, P4Runtime `ValueSetEntry`): one [`FieldMatch`] per
//! member field, of the kind its `@match` says. An all-exact set is a hash
//! set whose keys are the members ([`exact`]); any other is an array of
//! slots a select scans ([`slots`]). Each value is big-endian bytes of
//! its field's width; every error names the set, and the field and value
//! at fault. Either kind holds its members in two halves ([`live`]): a
//! replace writes the half packets do not read and then flips to it, so
//! a packet sees the old members or the new, never a mix.

mod exact;
mod live;
mod slots;
mod text;

pub use text::{member_text, parse_member};

use crate::error::{Result, RuntimeError};
use crate::map_source::MapSource;
use p4bpf_layout::{FieldLayout, Pipeline, ValueSet};

/// How one member field matches, values big-endian of the field's width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldMatch {
    Exact(Vec<u8>),
    Ternary {
        value: Vec<u8>,
        mask: Vec<u8>,
    },
    Lpm {
        value: Vec<u8>,
        prefix_len: u32,
    },
    /// Bounds included.
    Range {
        lo: Vec<u8>,
        hi: Vec<u8>,
    },
    /// `None` matches any value.
    Optional(Option<Vec<u8>>),
}

/// One member: a match per field, in the element type's field order.
pub type Member = Vec<FieldMatch>;

/// Value set `name` (its dotted P4 name or its map's name).
pub fn find<'a>(pipeline: &'a Pipeline, name: &str) -> Result<&'a ValueSet> {
    let sets = &pipeline.value_sets;
    sets.iter()
        .find(|v| v.name == name || v.map == name)
        .ok_or_else(|| {
            let known: Vec<&str> = sets.iter().map(|v| v.name.as_str()).collect();
            let known = if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            };
            RuntimeError::Value(format!("no value set `{name}` (the program has: {known})"))
        })
}

/// Adds `member` to `set`, in both halves (a member already there stays
/// once).
pub fn add(source: &impl MapSource, set: &ValueSet, member: &Member) -> Result<()> {
    let map = source.map(&set.map)?;
    if set.scans() {
        slots::add(&map, set, live::half(source, set)?, member)
    } else {
        exact::add(&map, set, member)
    }
}

/// Makes `members` the whole of `set` (P4Runtime's MODIFY).
pub fn replace(source: &impl MapSource, set: &ValueSet, members: &[Member]) -> Result<()> {
    if members.len() > set.size as usize {
        return Err(RuntimeError::Value(format!(
            "value set `{}` holds at most {} members, {} given",
            set.name,
            set.size,
            members.len()
        )));
    }
    let map = source.map(&set.map)?;
    let encoded = match set.scans() {
        true => Encoded::Slots(slots::encode_all(set, members)?),
        false => Encoded::Keys(exact::encode_all(&map, set, members)?),
    };
    let live = live::half(source, set)?;
    let write_half = |half| match &encoded {
        Encoded::Slots(slots) => slots::write_half(&map, set, slots, half),
        Encoded::Keys(keys) => exact::write_half(&map, keys, half),
    };
    write_half(live ^ 1)?;
    live::flip(source, set, live ^ 1)?;
    // No packet reads the old half now: it takes the new members too.
    write_half(live)
}

/// A replace's members, checked and encoded before any write.
enum Encoded {
    Slots(Vec<Vec<u8>>),
    Keys(Vec<Vec<u8>>),
}

/// Every member of `set` (in the half packets read).
pub fn members(source: &impl MapSource, set: &ValueSet) -> Result<Vec<Member>> {
    let map = source.map(&set.map)?;
    let live = live::half(source, set)?;
    if set.scans() {
        slots::members(&map, set, live)
    } else {
        exact::members(&map, set, live)
    }
}

/// An error about `value` of `field` in value set `set`.
fn field_error(set: &ValueSet, field: &FieldLayout, value: &str, why: &str) -> RuntimeError {
    RuntimeError::Value(format!(
        "value set `{}`, field `{}`: `{value}` {why}",
        set.name, field.name
    ))
}

/// Checks that `member` has one match per field of `set` (whether each
/// is of its field's kind is the storage's check).
fn check_shape(set: &ValueSet, member: &Member) -> Result<()> {
    if member.len() != set.fields.len() {
        let names: Vec<&str> = set.fields.iter().map(|f| f.name.as_str()).collect();
        return Err(RuntimeError::Value(format!(
            "value set `{}` takes one value per field ({}), {} given",
            set.name,
            names.join(", "),
            member.len()
        )));
    }
    Ok(())
}
