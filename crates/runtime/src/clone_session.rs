//! PSA's clone sessions by number: what `p4bpf clone` and the STF command
//! `mirroring_add` write. A session is one entry of the pipeline's clone
//! sessions map (see [`p4bpf_layout::Replication::clone_sessions_map`]),
//! laid out as a multicast group: its member count, then each member's
//! port and instance.

use crate::control::delete_key;
use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::map_source::MapSource;
use crate::multicast::{read_members, write_members, Member};
use crate::xdp_copies::{self, Copies};
use p4bpf_layout::Pipeline;

/// Replaces session `session`'s members (creating the session).
pub fn set_session(
    source: &impl MapSource,
    description: &Pipeline,
    session: u32,
    members: &[Member],
) -> Result<()> {
    let (map, max) = sessions(source, description)?;
    write_members(
        &map,
        session,
        members,
        max,
        &format!("clone session {session}"),
    )?;
    let ports: Vec<u32> = members.iter().map(|m| m.port).collect();
    xdp_copies::refresh(source, description, Copies::Session(session), &ports)
}

/// Removes session `session`: clones to it go nowhere.
pub fn delete_session(source: &impl MapSource, description: &Pipeline, session: u32) -> Result<()> {
    let (map, _) = sessions(source, description)?;
    delete_key(&map, &session.to_ne_bytes())
        .map_err(|_| RuntimeError::Value(format!("clone session {session} does not exist")))?;
    xdp_copies::forget(source, description, Copies::Session(session))
}

/// Every session with its members, by session number.
pub fn list_sessions(
    source: &impl MapSource,
    description: &Pipeline,
) -> Result<Vec<(u32, Vec<Member>)>> {
    let (map, _) = sessions(source, description)?;
    read_members(&map)
}

fn sessions(source: &impl MapSource, description: &Pipeline) -> Result<(Map, u32)> {
    let found = description
        .replication
        .as_ref()
        .and_then(|r| r.clone_sessions_map.as_ref().map(|m| (m, r.max_replicas)))
        .or_else(|| mirror_sessions(description));
    let Some((name, max)) = found else {
        return Err(RuntimeError::Value(format!(
            "program `{}` has no clone or mirror sessions: it never clones (`ostd.clone`) nor calls `mirror_packet`",
            description.program
        )));
    };
    Ok((source.map(name)?, max))
}

/// PNA's mirror sessions, laid out as clone sessions.
fn mirror_sessions(description: &Pipeline) -> Option<(&String, u32)> {
    let m = description.mirror_sessions.as_ref()?;
    Some((&m.map, m.max_members))
}
