//! The devmaps a pipeline's copies leave through at XDP (see
//! [`p4bpf_layout::Replication::copy_ports_map`]): writing a multicast
//! group or a clone session rebuilds its devmap, one entry per port a
//! copy may leave by, each running the pipeline's egress program on the
//! copy. Devmap entries hold interface indexes: P4 ports become them
//! through the pipeline's port map; a port with no interface gets none.

use crate::bpffs;
use crate::control::delete_key;
use crate::error::{Result, RuntimeError};
use crate::map::{u32_at, Map, Write};
use crate::map_source::MapSource;
use crate::sys_ops;
use p4bpf_layout::{Pipeline, SESSION_KEY};
use std::os::fd::AsRawFd;

/// What a devmap is for: a group's members, or a clone session's.
#[derive(Clone, Copy)]
pub(crate) enum Copies {
    Group(u32),
    Session(u32),
}

impl Copies {
    fn key(self) -> u64 {
        match self {
            Copies::Group(group) => u64::from(group),
            Copies::Session(session) => SESSION_KEY | u64::from(session),
        }
    }
}

/// Rebuilds the devmap of `copies` for members leaving by `ports`; a
/// clone session's devmap also holds every port of the pipeline, where
/// the original (or a replica) of a cloned packet leaves. Nothing to do
/// for a pipeline that makes its copies at TC.
pub(crate) fn refresh(
    source: &impl MapSource,
    description: &Pipeline,
    copies: Copies,
    ports: &[u32],
) -> Result<()> {
    let Some(outer) = copies_map(source, description)? else {
        return Ok(());
    };
    let port_map = source.map(description.port_map.as_deref().unwrap_or_default())?;
    let mut all: Vec<u32> = ports.to_vec();
    if let Copies::Session(_) = copies {
        all.extend(
            crate::control::keys(&port_map)?
                .iter()
                .map(|k| u32_at(k, 0)),
        );
    }
    let interfaces: Vec<u32> = all
        .iter()
        .filter_map(|port| interface(&port_map, *port))
        .collect();
    if let Some(host) = outer.user_host() {
        return crate::user::devmaps::refresh(host, &outer, copies.key(), &interfaces);
    }
    let program = source.copy_program()?.ok_or_else(|| {
        RuntimeError::NotSupported(format!(
            "pipeline `{}` makes its copies at XDP, but its egress program is not at hand",
            description.program
        ))
    })?;
    let size = u32::try_from(interfaces.len().max(1)).unwrap_or(u32::MAX);
    let devmap_fd = bpffs::create_map(sys_ops::MAP_TYPE_DEVMAP_HASH, "p4bpf_copies", 4, 8, size)?;
    let devmap = bpffs::map_over("p4bpf_copies", &devmap_fd)?;
    for (slot, ifindex) in (0u32..).zip(&interfaces) {
        let mut value = ifindex.to_ne_bytes().to_vec();
        value.extend(program.as_raw_fd().to_ne_bytes());
        devmap.write(&slot.to_ne_bytes(), &value, Write::Replace)?;
    }
    let inner = u32::try_from(devmap_fd.as_raw_fd()).unwrap_or_default();
    outer.write(
        &copies.key().to_ne_bytes(),
        &inner.to_ne_bytes(),
        Write::Replace,
    )
}

/// Rebuilds every group's and session's devmap: the pipeline's ports
/// changed, and with them the interfaces the copies leave by.
pub(crate) fn refresh_every(source: &impl MapSource, description: &Pipeline) -> Result<()> {
    if copies_map(source, description)?.is_none() {
        return Ok(());
    }
    let ports = |members: &[crate::multicast::Member]| -> Vec<u32> {
        members.iter().map(|m| m.port).collect()
    };
    if description.replication.is_some() {
        for (group, members) in crate::multicast::list_groups(source, description)? {
            refresh(source, description, Copies::Group(group), &ports(&members))?;
        }
    }
    let clones = description.replication.as_ref();
    let mirrors = description.mirror_sessions.is_some();
    if mirrors || clones.is_some_and(|r| r.clone_sessions_map.is_some()) {
        for (session, members) in crate::clone_session::list_sessions(source, description)? {
            refresh(
                source,
                description,
                Copies::Session(session),
                &ports(&members),
            )?;
        }
    }
    Ok(())
}

/// Forgets the devmap of `copies` (a deleted group or session).
pub(crate) fn forget(
    source: &impl MapSource,
    description: &Pipeline,
    copies: Copies,
) -> Result<()> {
    match copies_map(source, description)? {
        Some(outer) => delete_key(&outer, &copies.key().to_ne_bytes()).or(Ok(())),
        None => Ok(()),
    }
}

fn copies_map(source: &impl MapSource, description: &Pipeline) -> Result<Option<Map>> {
    let name = description.copy_ports_map();
    name.map(|name| source.map(name)).transpose()
}

/// The interface P4 port `port` leaves by, if it has one.
fn interface(port_map: &Map, port: u32) -> Option<u32> {
    let values = port_map.read(&port.to_ne_bytes()).ok()?;
    values.first().map(|v| u32_at(v, 0))
}
