//! Multicast groups by number: what `p4bpf mcast` and the STF commands
//! `mc_mgrp_create` / `mc_node_create` / `mc_node_associate` write, and
//! what P4Runtime's PacketReplicationEngineEntry can write later. A group
//! is one entry of the pipeline's groups map (see
//! [`p4bpf_layout::Replication`]): its member count, then each member's
//! port and replica id.

use crate::control::{delete_key, keys};
use crate::error::{Result, RuntimeError};
use crate::map::{u32_at, Map, Write};
use crate::map_source::MapSource;
use crate::xdp_copies::{self, Copies};
use p4bpf_layout::{Pipeline, Replication};

/// One copy of a multicast packet: out of `port`, seen by egress with
/// replica id `rid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub port: u32,
    pub rid: u32,
}

/// Replaces group `group`'s members (creating the group).
pub fn set_group(
    source: &impl MapSource,
    description: &Pipeline,
    group: u32,
    members: &[Member],
) -> Result<()> {
    let (map, replication) = groups(source, description)?;
    check_group(group)?;
    let what = format!("multicast group {group}");
    write_members(&map, group, members, replication.max_replicas, &what)?;
    let ports: Vec<u32> = members.iter().map(|m| m.port).collect();
    xdp_copies::refresh(source, description, Copies::Group(group), &ports)
}

/// Writes `members` whole as entry `key` of a groups-shaped map (clone
/// sessions are too).
pub(crate) fn write_members(
    map: &Map,
    key: u32,
    members: &[Member],
    max: u32,
    what: &str,
) -> Result<()> {
    let value = members_value(map, members, max, what)?;
    map.write(&key.to_ne_bytes(), &value, Write::Replace)
}

/// A groups-shaped map's value holding `members`: their count, then each
/// member's port and rid; the rest zero.
pub(crate) fn members_value(
    map: &Map,
    members: &[Member],
    max: u32,
    what: &str,
) -> Result<Vec<u8>> {
    if members.len() > max as usize {
        return Err(RuntimeError::Value(format!(
            "{what}: {} members, the program holds at most {max}",
            members.len(),
        )));
    }
    let mut value = vec![0u8; map.value_size() as usize];
    let count = u32::try_from(members.len()).unwrap_or(u32::MAX);
    let words = std::iter::once(count).chain(members.iter().flat_map(|m| [m.port, m.rid]));
    for (slot, word) in value.chunks_exact_mut(4).zip(words) {
        slot.copy_from_slice(&word.to_ne_bytes());
    }
    Ok(value)
}

/// Removes group `group`.
pub fn delete_group(source: &impl MapSource, description: &Pipeline, group: u32) -> Result<()> {
    let (map, _) = groups(source, description)?;
    delete_key(&map, &group.to_ne_bytes())
        .map_err(|_| RuntimeError::Value(format!("multicast group {group} does not exist")))?;
    xdp_copies::forget(source, description, Copies::Group(group))
}

/// Every group with its members, by group number.
pub fn list_groups(
    source: &impl MapSource,
    description: &Pipeline,
) -> Result<Vec<(u32, Vec<Member>)>> {
    let (map, _) = groups(source, description)?;
    read_members(&map)
}

/// Every entry of a groups-shaped map with its members, by key.
pub(crate) fn read_members(map: &Map) -> Result<Vec<(u32, Vec<Member>)>> {
    let mut out = vec![];
    for key in keys(map)? {
        let value = map.read(&key)?.into_iter().next().unwrap_or_default();
        let words: Vec<u32> = value
            .chunks_exact(4)
            .filter_map(|w| w.try_into().ok().map(u32::from_ne_bytes))
            .collect();
        let count = words.first().copied().unwrap_or(0) as usize;
        let members = words
            .get(1..)
            .unwrap_or_default()
            .chunks_exact(2)
            .take(count)
            .map(|pair| Member {
                port: pair.first().copied().unwrap_or(0),
                rid: pair.get(1).copied().unwrap_or(0),
            })
            .collect();
        out.push((u32_at(&key, 0), members));
    }
    out.sort_by_key(|(group, _)| *group);
    Ok(out)
}

fn groups<'d>(
    source: &impl MapSource,
    description: &'d Pipeline,
) -> Result<(Map, &'d Replication)> {
    let Some(replication) = &description.replication else {
        return Err(RuntimeError::Value(format!(
            "program `{}` has no multicast groups: it never sets a multicast group",
            description.program
        )));
    };
    Ok((source.map(&replication.groups_map)?, replication))
}

/// Group 0 means "no multicast" to the program.
fn check_group(group: u32) -> Result<()> {
    if group == 0 {
        return Err(RuntimeError::Value(
            "multicast group 0 means no multicast: use groups from 1".into(),
        ));
    }
    Ok(())
}
