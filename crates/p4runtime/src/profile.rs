//! Action profiles over P4Runtime: `ActionProfileMember` and
//! `ActionProfileGroup` writes, and the entries of tables with an
//! implementation, which name a member or a group (`TableAction`'s
//! `action_profile_member_id`, `action_profile_group_id`). A table's
//! action ids resolve against its profile's members (see `schema`), so a
//! member's action is checked as a table entry's would be. Each applied
//! member or group update leaves an [`Undo`] (what it was before), which
//! ROLLBACK_ON_ERROR applies when a later update of its batch fails.

use crate::failure::{Failure, Outcome};
use crate::proto::p4::v1::{
    table_action, update, ActionProfileGroup, ActionProfileMember, TableAction, TableEntry,
};
use crate::schema::{Schema, TableIds};
use crate::table_entry::{action_spec, field_match, key_spec, table_entry};
use p4bpf_layout::{ActionProfile, Table, GROUP_ACTION, MEMBER_ACTION};
use p4bpf_runtime::control::Entry;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::{control, names, profile};
use tonic::Code;

/// The entry of a table with an action profile: its key, and the member
/// or group it names as the reference action `member` or `group`.
pub fn indirect_entry_spec(
    ids: &TableIds,
    table: &Table,
    entry: &TableEntry,
) -> Outcome<EntrySpec> {
    let (reference, id) = match entry.action.as_ref().and_then(|a| a.r#type.as_ref()) {
        Some(table_action::Type::ActionProfileMemberId(id)) => (MEMBER_ACTION, *id),
        Some(table_action::Type::ActionProfileGroupId(id)) => (GROUP_ACTION, *id),
        _ => {
            return Err(Failure::invalid(format!(
                "table `{}` takes its actions from an action profile: name a member or a group",
                ids.name
            )))
        }
    };
    let action = table
        .actions
        .iter()
        .position(|a| a.name == reference)
        .ok_or_else(|| {
            Failure::invalid(format!(
                "table `{}`: its action profile has no groups (it is not a selector)",
                ids.name
            ))
        })?;
    let mut spec = key_spec(ids, table, entry)?;
    spec.action = action;
    spec.args = vec![(0, id.to_string())];
    Ok(spec)
}

/// A decoded entry as P4Runtime reads it: for a table with an action
/// profile, its key and the member or group it names.
pub fn read_entry(
    schema: &Schema,
    ids: &TableIds,
    table: &Table,
    entry: &Entry,
) -> Outcome<TableEntry> {
    if schema.pipeline.profile_of_table(&table.name).is_none() {
        return table_entry(ids, table, entry);
    }
    let mut matches = Vec::new();
    for (name, text) in &entry.keys {
        let key = names::key_field(table, name).map_err(Failure::from)?;
        if let Some(field) = ids.fields.iter().find(|f| f.key == key) {
            matches.extend(field_match(field, text)?);
        }
    }
    let id = entry
        .params
        .first()
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    Ok(TableEntry {
        table_id: ids.id,
        r#match: matches,
        action: reference(&entry.action, id),
        priority: entry.priority.filter(|_| ids.needs_priority).unwrap_or(0) as i32,
        ..TableEntry::default()
    })
}

/// The reference of a decoded entry of a table with an action profile.
fn reference(action: &str, id: u32) -> Option<TableAction> {
    let kind = match action {
        MEMBER_ACTION => table_action::Type::ActionProfileMemberId(id),
        GROUP_ACTION => table_action::Type::ActionProfileGroupId(id),
        _ => return None,
    };
    Some(TableAction { r#type: Some(kind) })
}

/// How to take back an applied member or group update of profile
/// `profile` (its P4Info id).
pub enum Undo {
    /// Member `id` back as `before`, or gone when it was new.
    Member {
        profile: u32,
        id: u32,
        before: Option<EntrySpec>,
    },
    /// Group `id` back with `before`'s members (one id a slot), or gone
    /// when it was new.
    Group {
        profile: u32,
        id: u32,
        before: Option<Vec<u32>>,
    },
}

pub fn member_update(
    schema: &Schema,
    source: &Deployment,
    kind: update::Type,
    member: &ActionProfileMember,
) -> Outcome<Undo> {
    let (p, ids) = find(schema, member.action_profile_id)?;
    let id = member.member_id;
    let undo = |before| Undo::Member {
        profile: member.action_profile_id,
        id,
        before,
    };
    if kind == update::Type::Delete {
        let before = member_spec(source, p, id)?;
        profile::delete_member(source, &schema.pipeline, p, id).map_err(in_use)?;
        return Ok(undo(Some(before)));
    }
    let action = TableAction {
        r#type: Some(table_action::Type::Action(
            member.action.clone().unwrap_or_default(),
        )),
    };
    let known = ids
        .iter()
        .find_map(|t| action_spec(t, Some(&action)).ok())
        .ok_or_else(|| {
            Failure::invalid(format!(
                "action profile `{}`: action {} is not an action of its tables, or its parameters are wrong",
                p.name,
                member.action.as_ref().map_or(0, |a| a.action_id)
            ))
        })?;
    let spec = EntrySpec {
        keys: vec![(0, id.to_string())],
        action: known.0,
        args: known.1,
        priority: None,
    };
    let before = member_spec(source, p, id);
    match (kind, before) {
        (update::Type::Insert, Ok(_)) => Err(Failure::new(
            Code::AlreadyExists,
            format!("action profile `{}` already has member {id}", p.name),
        )),
        (update::Type::Insert, Err(_)) => {
            control::add(source, &p.members, &spec)?;
            Ok(undo(None))
        }
        (_, Err(missing)) => Err(missing),
        (_, Ok(before)) => {
            control::modify(source, &p.members, &spec)?;
            Ok(undo(Some(before)))
        }
    }
}

/// Member `id` of `p` as the spec that writes it again.
fn member_spec(source: &Deployment, p: &ActionProfile, id: u32) -> Outcome<EntrySpec> {
    let key = control::key_only(&p.members, vec![(0, id.to_string())], None)?;
    let entry = control::get(source, &p.members, &key).map_err(|_| {
        Failure::not_found(format!("action profile `{}` has no member {id}", p.name))
    })?;
    crate::write::spec_of(&p.members, &entry)
}

pub fn group_update(
    schema: &Schema,
    source: &Deployment,
    kind: update::Type,
    group: &ActionProfileGroup,
) -> Outcome<Undo> {
    let (p, _) = find(schema, group.action_profile_id)?;
    let id = group.group_id;
    let before = profile::list_groups(source, p)?
        .into_iter()
        .find_map(|(g, members)| (g == id).then_some(members));
    let undo = Undo::Group {
        profile: group.action_profile_id,
        id,
        before: before.clone(),
    };
    if kind == update::Type::Delete {
        profile::delete_group(source, &schema.pipeline, p, id).map_err(in_use)?;
        return Ok(undo);
    }
    // A member of weight w takes w slots of the group.
    let mut members = vec![];
    for m in &group.members {
        let weight = usize::try_from(m.weight.max(1)).unwrap_or(1);
        members.extend(std::iter::repeat_n(m.member_id, weight));
    }
    match (kind, before.is_some()) {
        (update::Type::Insert, true) => {
            return Err(Failure::new(
                Code::AlreadyExists,
                format!("action selector `{}` already has group {id}", p.name),
            ))
        }
        (update::Type::Insert, false) => profile::add_group(source, p, id)?,
        (_, false) => {
            return Err(Failure::not_found(format!(
                "action selector `{}` has no group {id}",
                p.name
            )))
        }
        (_, true) => {}
    }
    let written = profile::set_members(source, p, id, &members);
    if written.is_err() && kind == update::Type::Insert {
        // All or nothing: the group made for this update goes again.
        let _ = profile::delete_group(source, &schema.pipeline, p, id);
    }
    written?;
    Ok(undo)
}

/// Take back an applied member or group update.
pub fn undo(schema: &Schema, source: &Deployment, step: Undo) -> Outcome<()> {
    match step {
        Undo::Member {
            profile,
            id,
            before,
        } => {
            let (p, _) = find(schema, profile)?;
            match (before, member_spec(source, p, id).is_ok()) {
                (None, _) => profile::delete_member(source, &schema.pipeline, p, id)?,
                (Some(spec), true) => control::modify(source, &p.members, &spec)?,
                (Some(spec), false) => control::add(source, &p.members, &spec)?,
            }
        }
        Undo::Group {
            profile,
            id,
            before,
        } => {
            let (p, _) = find(schema, profile)?;
            let exists = profile::list_groups(source, p)?
                .iter()
                .any(|(g, _)| *g == id);
            match before {
                None => profile::delete_group(source, &schema.pipeline, p, id)?,
                Some(members) => {
                    if !exists {
                        profile::add_group(source, p, id)?;
                    }
                    profile::set_members(source, p, id, &members)?;
                }
            }
        }
    }
    Ok(())
}

/// The profile with P4Info id `id`, and the ids of its tables.
fn find(schema: &Schema, id: u32) -> Outcome<(&ActionProfile, Vec<&TableIds>)> {
    let declared = schema
        .p4info
        .action_profiles
        .iter()
        .find(|p| p.preamble.as_ref().is_some_and(|pre| pre.id == id))
        .ok_or_else(|| {
            Failure::not_found(format!("no action profile with id {id} in the P4Info"))
        })?;
    let name = declared
        .preamble
        .as_ref()
        .map(|p| p.name.as_str())
        .unwrap_or_default();
    let p = profile::find(&schema.pipeline, name)?;
    let tables = declared
        .table_ids
        .iter()
        .filter_map(|t| schema.table(*t).ok())
        .collect();
    Ok((p, tables))
}

/// A reference still in use is a precondition that fails.
fn in_use(error: p4bpf_runtime::RuntimeError) -> Failure {
    Failure::new(Code::FailedPrecondition, error.to_string())
}
