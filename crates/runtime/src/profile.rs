//! Action profile members and selector groups by P4 name: what
//! `p4bpf profile`, BMv2's STF commands (`act_prof_*`) and P4Runtime's
//! action profile entities write. Members are entries of the profile's
//! member table (key `member_id`, see [`p4bpf_layout::ActionProfile`]); a
//! group is a count then member ids in the selector's groups map. Tables
//! naming the profile point at them with the reference actions `member`
//! and `group`. Nothing here leaves a reference dangling: a member in use
//! by an entry or a group, or a group in use by an entry, is not deleted,
//! and a group takes only members that exist.

use crate::control::{self, delete_key, keys};
use crate::error::{Result, RuntimeError};
use crate::map::{u32_at, Map, Write};
use crate::map_source::MapSource;
use p4bpf_layout::{ActionProfile, Pipeline, SelectorLayout, GROUP_ACTION, MEMBER_ACTION};

/// The profile `name` names: its dotted name or a unique last part.
pub fn find<'d>(description: &'d Pipeline, name: &str) -> Result<&'d ActionProfile> {
    let exact = description.profiles.iter().find(|p| p.name == name);
    let by_suffix = || {
        let mut found = description
            .profiles
            .iter()
            .filter(|p| p.name.rsplit('.').next() == Some(name));
        match (found.next(), found.next()) {
            (Some(p), None) => Some(p),
            _ => None,
        }
    };
    exact.or_else(by_suffix).ok_or_else(|| {
        let known: Vec<&str> = description
            .profiles
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        RuntimeError::Value(format!(
            "no action profile `{name}` (the program has: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
    })
}

/// Adds member `member`: `action` words as `table add` takes them
/// (`ACTION PARAM=VALUE...`).
pub fn add_member(
    source: &impl MapSource,
    profile: &ActionProfile,
    member: u32,
    action: &[String],
) -> Result<()> {
    let spec = member_spec(profile, member, action)?;
    control::add(source, &profile.members, &spec).map_err(|e| in_profile_terms(profile, member, e))
}

/// Replaces member `member`'s action: every entry and group naming it
/// runs the new one from the next packet.
pub fn modify_member(
    source: &impl MapSource,
    profile: &ActionProfile,
    member: u32,
    action: &[String],
) -> Result<()> {
    let spec = member_spec(profile, member, action)?;
    control::modify(source, &profile.members, &spec)
        .map_err(|e| in_profile_terms(profile, member, e))
}

/// Deletes member `member`, unless a table entry or a group names it.
pub fn delete_member(
    source: &impl MapSource,
    description: &Pipeline,
    profile: &ActionProfile,
    member: u32,
) -> Result<()> {
    if let Some(user) = first_reference(source, description, profile, MEMBER_ACTION, member)? {
        return Err(RuntimeError::Value(format!(
            "action profile `{}`: member {member} is in use by {user}; remove that first",
            profile.name
        )));
    }
    for (group, members) in list_groups(source, profile).unwrap_or_default() {
        if members.contains(&member) {
            return Err(RuntimeError::Value(format!(
                "action profile `{}`: member {member} is in group {group}; take it out of the group first",
                profile.name
            )));
        }
    }
    let map = source.map(&profile.members.map)?;
    delete_key(&map, &member.to_ne_bytes()).map_err(|_| no_member(profile, member))
}

/// Every member: its id, action and arguments, by id.
pub fn list_members(
    source: &impl MapSource,
    profile: &ActionProfile,
) -> Result<Vec<(u32, control::Entry)>> {
    let mut out: Vec<(u32, control::Entry)> = control::dump(source, &profile.members)?
        .into_iter()
        .map(|entry| {
            let id = entry.keys.first().and_then(|(_, v)| number(v)).unwrap_or(0);
            (id, entry)
        })
        .collect();
    out.sort_by_key(|(id, _)| *id);
    Ok(out)
}

/// Creates group `group`, empty.
pub fn add_group(source: &impl MapSource, profile: &ActionProfile, group: u32) -> Result<()> {
    let (map, _) = groups(source, profile)?;
    let value = vec![0u8; map.value_size() as usize];
    map.write(&group.to_ne_bytes(), &value, Write::Insert)
        .map_err(|_| {
            RuntimeError::Value(format!(
                "action selector `{}`: group {group} already exists",
                profile.name
            ))
        })
}

/// Replaces group `group`'s members (the group must exist); each member
/// must exist, and a member may appear more than once (a weight).
pub fn set_members(
    source: &impl MapSource,
    profile: &ActionProfile,
    group: u32,
    members: &[u32],
) -> Result<()> {
    let (map, selector) = groups(source, profile)?;
    map.read(&group.to_ne_bytes())
        .map_err(|_| no_group(profile, group))?;
    if members.len() > selector.max_group_size as usize {
        return Err(RuntimeError::Value(format!(
            "action selector `{}`: group {group} would hold {} members, at most {} fit (`@max_group_size`)",
            profile.name,
            members.len(),
            selector.max_group_size
        )));
    }
    let member_map = source.map(&profile.members.map)?;
    for member in members {
        member_map
            .read(&member.to_ne_bytes())
            .map_err(|_| no_member(profile, *member))?;
    }
    let mut value = vec![0u8; map.value_size() as usize];
    let count = u32::try_from(members.len()).unwrap_or(u32::MAX);
    for (slot, word) in value
        .chunks_exact_mut(4)
        .zip(std::iter::once(count).chain(members.iter().copied()))
    {
        slot.copy_from_slice(&word.to_ne_bytes());
    }
    map.write(&group.to_ne_bytes(), &value, Write::Replace)
}

/// Deletes group `group`, unless a table entry names it.
pub fn delete_group(
    source: &impl MapSource,
    description: &Pipeline,
    profile: &ActionProfile,
    group: u32,
) -> Result<()> {
    let (map, _) = groups(source, profile)?;
    if let Some(user) = first_reference(source, description, profile, GROUP_ACTION, group)? {
        return Err(RuntimeError::Value(format!(
            "action selector `{}`: group {group} is in use by {user}; remove that first",
            profile.name
        )));
    }
    delete_key(&map, &group.to_ne_bytes()).map_err(|_| no_group(profile, group))
}

/// Every group with its member ids, by group id.
pub fn list_groups(
    source: &impl MapSource,
    profile: &ActionProfile,
) -> Result<Vec<(u32, Vec<u32>)>> {
    let (map, _) = groups(source, profile)?;
    let mut out = vec![];
    for key in keys(&map)? {
        let value = map.read(&key)?.into_iter().next().unwrap_or_default();
        let count = u32_at(&value, 0) as usize;
        let members = (1..=count).map(|i| u32_at(&value, 4 * i)).collect();
        out.push((u32_at(&key, 0), members));
    }
    out.sort_by_key(|(group, _)| *group);
    Ok(out)
}

/// The first table entry (or default action) of the profile's tables
/// whose reference `action` names `id`, described for a message.
fn first_reference(
    source: &impl MapSource,
    description: &Pipeline,
    profile: &ActionProfile,
    action: &str,
    id: u32,
) -> Result<Option<String>> {
    for table in profile.tables.iter().filter_map(|t| description.table(t)) {
        for entry in control::dump(source, table)? {
            let names_it = entry.action == action
                && entry.params.first().and_then(|(_, v)| number(v)) == Some(id);
            if names_it {
                let key: Vec<String> = entry.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
                return Ok(Some(format!(
                    "an entry of table `{}` ({})",
                    table.name,
                    key.join(" ")
                )));
            }
        }
        if default_names(source, table, action, id)? {
            return Ok(Some(format!(
                "the default action of table `{}`",
                table.name
            )));
        }
    }
    Ok(None)
}

/// Whether `table`'s runtime default is reference `action` to `id`.
fn default_names(
    source: &impl MapSource,
    table: &p4bpf_layout::Table,
    action: &str,
    id: u32,
) -> Result<bool> {
    let (Some(map), Some(reference)) = (
        &table.default_map,
        table.actions.iter().find(|a| a.name == action),
    ) else {
        return Ok(false);
    };
    let value = source
        .map(map)?
        .read(&table.default_slot.to_ne_bytes())?
        .into_iter()
        .next()
        .unwrap_or_default();
    let offset = reference
        .params
        .first()
        .map_or(0, |p| p.byte_offset as usize);
    Ok(u32_at(&value, 0) == reference.code && u32_at(&value, offset) == id)
}

fn member_spec(
    profile: &ActionProfile,
    member: u32,
    action: &[String],
) -> Result<crate::entry::EntrySpec> {
    let mut all = vec![format!("member_id={member}")];
    all.extend(action.iter().cloned());
    control::parse_entry(&profile.members, &all, None)
}

fn groups<'p>(
    source: &impl MapSource,
    profile: &'p ActionProfile,
) -> Result<(Map, &'p SelectorLayout)> {
    let Some(selector) = &profile.selector else {
        return Err(RuntimeError::Value(format!(
            "`{}` is an action profile without a selector: it has members, not groups",
            profile.name
        )));
    };
    Ok((source.map(&selector.groups_map)?, selector))
}

/// A decimal or `0x` number as decoded entries print them.
fn number(text: &str) -> Option<u32> {
    match text.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn no_member(profile: &ActionProfile, member: u32) -> RuntimeError {
    RuntimeError::Value(format!(
        "action profile `{}` has no member {member}",
        profile.name
    ))
}

fn no_group(profile: &ActionProfile, group: u32) -> RuntimeError {
    RuntimeError::Value(format!(
        "action selector `{}` has no group {group}",
        profile.name
    ))
}

/// A member table's error in the profile's terms.
fn in_profile_terms(profile: &ActionProfile, member: u32, error: RuntimeError) -> RuntimeError {
    match error {
        RuntimeError::Value(why) if why.contains("already") => RuntimeError::Value(format!(
            "action profile `{}` already has a member {member}",
            profile.name
        )),
        RuntimeError::Value(why) if why.contains("no entry") => no_member(profile, member),
        other => other,
    }
}
