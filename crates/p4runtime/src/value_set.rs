//! Parser value sets over P4Runtime. A `ValueSetEntry` MODIFY makes its
//! members the whole set (the specification defines no INSERT or DELETE
//! for value sets; an empty MODIFY empties the set), atomically for
//! packets (`p4bpf_runtime::value_set::replace`); a read returns every
//! member, value set id 0 meaning every set. A member is one `FieldMatch`
//! per P4Info match field of the set (ids 1.., in the element's field
//! order), of the field's match type; a ternary, lpm, range or optional
//! field left out matches any value, as in a table entry, and is left
//! out when read back.

use crate::bytestring::{canonical, padded, significant_bits};
use crate::failure::{Failure, Outcome};
use crate::proto::p4::v1::field_match::{self, FieldMatchType};
use crate::proto::p4::v1::{entity, update, Entity, FieldMatch, ValueSetEntry, ValueSetMember};
use crate::schema::Schema;
use p4bpf_layout::{FieldLayout, MatchKind, ValueSet};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::value;
use p4bpf_runtime::value_set::{self, FieldMatch as Match, Member};
use tonic::Code;

/// A value set's members before an update, to roll it back.
pub struct Undo {
    set: String,
    members: Vec<Member>,
}

/// Applies a `ValueSetEntry` update.
pub fn update(
    schema: &Schema,
    source: &Deployment,
    kind: update::Type,
    entry: &ValueSetEntry,
) -> Outcome<Undo> {
    let set = layout_set(schema, entry.value_set_id)?;
    if kind != update::Type::Modify {
        return Err(Failure::invalid(format!(
            "value set `{}`: only MODIFY writes a value set (its members replace the set's)",
            set.name
        )));
    }
    if entry.members.len() > set.size as usize {
        return Err(Failure::new(
            Code::ResourceExhausted,
            format!(
                "value set `{}` holds at most {} members, {} given",
                set.name,
                set.size,
                entry.members.len()
            ),
        ));
    }
    let members = entry
        .members
        .iter()
        .map(|m| member(set, m))
        .collect::<Outcome<Vec<_>>>()?;
    let before = value_set::members(source, set)?;
    value_set::replace(source, set, &members)?;
    Ok(Undo {
        set: set.name.clone(),
        members: before,
    })
}

/// Puts a value set back as it was before an update.
pub fn undo(schema: &Schema, source: &Deployment, undo: Undo) -> Outcome<()> {
    let set = value_set::find(&schema.pipeline, &undo.set)?;
    Ok(value_set::replace(source, set, &undo.members)?)
}

/// The members of the set `wanted` names (every set for id 0).
pub fn read(
    schema: &Schema,
    source: &Deployment,
    wanted: &ValueSetEntry,
    found: &mut Vec<Entity>,
) -> Outcome<()> {
    let ids: Vec<u32> = match wanted.value_set_id {
        0 => schema
            .p4info
            .value_sets
            .iter()
            .filter_map(|v| v.preamble.as_ref().map(|p| p.id))
            .collect(),
        id => vec![id],
    };
    for id in ids {
        let set = layout_set(schema, id)?;
        let members = value_set::members(source, set)?
            .iter()
            .map(|m| written(set, m))
            .collect();
        found.push(Entity {
            entity: Some(entity::Entity::ValueSetEntry(ValueSetEntry {
                value_set_id: id,
                members,
            })),
        });
    }
    Ok(())
}

/// The description's value set P4Info id `id` names.
fn layout_set(schema: &Schema, id: u32) -> Outcome<&ValueSet> {
    let info = schema
        .p4info
        .value_sets
        .iter()
        .find(|v| v.preamble.as_ref().is_some_and(|p| p.id == id))
        .ok_or_else(|| Failure::not_found(format!("no value set with id {id} in the P4Info")))?;
    let name = info.preamble.as_ref().map_or("", |p| p.name.as_str());
    let set = value_set::find(&schema.pipeline, name)?;
    if info.r#match.len() != set.fields.len() {
        return Err(Failure::invalid(format!(
            "value set `{name}`: the P4Info lists {} match fields, the program's set has {}",
            info.r#match.len(),
            set.fields.len()
        )));
    }
    Ok(set)
}

/// The runtime member a P4Runtime member writes.
fn member(set: &ValueSet, given: &ValueSetMember) -> Outcome<Member> {
    if let Some(extra) = given
        .r#match
        .iter()
        .find(|m| m.field_id == 0 || m.field_id as usize > set.fields.len())
    {
        return Err(Failure::invalid(format!(
            "value set `{}` has no match field {}",
            set.name, extra.field_id
        )));
    }
    set.fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let id = index as u32 + 1;
            let mut given = given.r#match.iter().filter(|m| m.field_id == id);
            let (first, second) = (given.next(), given.next());
            if second.is_some() {
                return Err(field_failure(set, field, "is given twice"));
            }
            field_value(set, field, set.match_kind(index), first)
        })
        .collect()
}

/// One field of a member, from its `FieldMatch` (`None`: left out).
fn field_value(
    set: &ValueSet,
    field: &FieldLayout,
    kind: MatchKind,
    given: Option<&FieldMatch>,
) -> Outcome<Match> {
    let width = field.bit_width;
    let bytes = |b: &[u8]| sized(set, field, b);
    Ok(
        match (given.and_then(|g| g.field_match_type.as_ref()), kind) {
            (Some(FieldMatchType::Exact(e)), MatchKind::Exact) => Match::Exact(bytes(&e.value)?),
            (Some(FieldMatchType::Ternary(t)), MatchKind::Ternary) => Match::Ternary {
                value: bytes(&t.value)?,
                mask: bytes(&t.mask)?,
            },
            (Some(FieldMatchType::Lpm(l)), MatchKind::Lpm) => Match::Lpm {
                value: bytes(&l.value)?,
                prefix_len: u32::try_from(l.prefix_len)
                    .map_err(|_| field_failure(set, field, "has a negative prefix length"))?,
            },
            (Some(FieldMatchType::Range(r)), MatchKind::Range) => Match::Range {
                lo: bytes(&r.low)?,
                hi: bytes(&r.high)?,
            },
            (Some(FieldMatchType::Optional(o)), MatchKind::Optional) => {
                Match::Optional(Some(bytes(&o.value)?))
            }
            (None, MatchKind::Exact) => {
                return Err(field_failure(set, field, "is missing (it is exact)"))
            }
            (None, MatchKind::Ternary) => Match::Ternary {
                value: vec![0; value::byte_len(width)],
                mask: vec![0; value::byte_len(width)],
            },
            (None, MatchKind::Lpm) => Match::Lpm {
                value: vec![0; value::byte_len(width)],
                prefix_len: 0,
            },
            (None, MatchKind::Range) => Match::Range {
                lo: vec![0; value::byte_len(width)],
                hi: value::prefix_mask(width, width),
            },
            (None, MatchKind::Optional) => Match::Optional(None),
            (Some(_), kind) => {
                let why = format!(
                    "is not a {} match, as the field's match type is",
                    kind_name(kind)
                );
                return Err(field_failure(set, field, &why));
            }
        },
    )
}

/// A bytestring of at most the field's width, as the field's bytes.
fn sized(set: &ValueSet, field: &FieldLayout, bytes: &[u8]) -> Outcome<Vec<u8>> {
    let width = field.bit_width;
    if bytes.is_empty() {
        return Err(field_failure(set, field, "has an empty bytestring"));
    }
    if significant_bits(bytes) > width {
        return Err(Failure::new(
            Code::OutOfRange,
            format!(
                "value set `{}`, field `{}`: value 0x{} has more than the field's {width} bits",
                set.name,
                field.name,
                crate::bytestring::hex(bytes)
            ),
        ));
    }
    Ok(padded(bytes, value::byte_len(width)))
}

/// A runtime member as P4Runtime writes it, wildcards left out.
fn written(set: &ValueSet, member: &Member) -> ValueSetMember {
    let r#match = member
        .iter()
        .zip(&set.fields)
        .zip(1u32..)
        .filter_map(|((m, field), field_id)| {
            field_match_type(m, field).map(|t| FieldMatch {
                field_id,
                field_match_type: Some(t),
            })
        })
        .collect();
    ValueSetMember { r#match }
}

fn field_match_type(m: &Match, field: &FieldLayout) -> Option<FieldMatchType> {
    let zero = |b: &[u8]| b.iter().all(|x| *x == 0);
    Some(match m {
        Match::Exact(v) => FieldMatchType::Exact(field_match::Exact {
            value: canonical(v),
        }),
        Match::Ternary { mask, .. } if zero(mask) => return None,
        Match::Ternary { value, mask } => FieldMatchType::Ternary(field_match::Ternary {
            value: canonical(value),
            mask: canonical(mask),
        }),
        Match::Lpm { prefix_len: 0, .. } => return None,
        Match::Lpm { value, prefix_len } => FieldMatchType::Lpm(field_match::Lpm {
            value: canonical(value),
            prefix_len: *prefix_len as i32,
        }),
        Match::Range { lo, hi }
            if zero(lo) && *hi == value::prefix_mask(field.bit_width, field.bit_width) =>
        {
            return None
        }
        Match::Range { lo, hi } => FieldMatchType::Range(field_match::Range {
            low: canonical(lo),
            high: canonical(hi),
        }),
        Match::Optional(None) => return None,
        Match::Optional(Some(v)) => FieldMatchType::Optional(field_match::Optional {
            value: canonical(v),
        }),
    })
}

fn kind_name(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "EXACT",
        MatchKind::Ternary => "TERNARY",
        MatchKind::Lpm => "LPM",
        MatchKind::Range => "RANGE",
        MatchKind::Optional => "OPTIONAL",
    }
}

fn field_failure(set: &ValueSet, field: &FieldLayout, why: &str) -> Failure {
    Failure::invalid(format!(
        "value set `{}`, field `{}` {why}",
        set.name, field.name
    ))
}
