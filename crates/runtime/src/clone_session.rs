//! PSA's clone sessions by number: what `p4bpf clone` and the STF command
//! `mirroring_add` write. A session is one entry of the pipeline's clone
//! sessions map (see [`p4bpf_layout::Replication::clone_sessions_map`]),
//! laid out as a multicast group (its member count, then each member's
//! port and instance, `max_replicas` slots), then each member's
//! [`CopyTraits`] (`max_replicas` slots again).

use crate::control::delete_key;
use crate::error::{Result, RuntimeError};
use crate::map::{u32_at, Map, Write};
use crate::map_source::MapSource;
use crate::multicast::{members_value, read_members, Member};
use crate::xdp_copies::{self, Copies};
use p4bpf_layout::{Architecture, Pipeline};

/// What a clone session gives one copy besides its port and instance
/// (PSA's clone session: class of service, truncation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyTraits {
    /// The copy's class of service: egress reads it, and at TC it is the
    /// copy's `skb->priority`.
    pub class_of_service: u32,
    /// The copy is cut to this many bytes before egress; 0: not cut.
    pub packet_length_bytes: u32,
}

/// A session's members, each with its copies' traits.
pub type MembersWithTraits = Vec<(Member, CopyTraits)>;

/// The largest class of service: psa.p4's `ClassOfServiceUint_t` is
/// `bit<8>`.
const MAX_CLASS_OF_SERVICE: u32 = 255;
/// The kernel keeps at least a packet's Ethernet header.
const MIN_PACKET_LENGTH: u32 = 14;

/// Replaces session `session`'s members (creating the session), their
/// copies uncut and of class of service 0.
pub fn set_session(
    source: &impl MapSource,
    description: &Pipeline,
    session: u32,
    members: &[Member],
) -> Result<()> {
    let traits = vec![CopyTraits::default(); members.len()];
    set_session_with(source, description, session, members, &traits)
}

/// Replaces session `session`'s members, member `i`'s copies getting
/// `traits[i]`.
pub fn set_session_with(
    source: &impl MapSource,
    description: &Pipeline,
    session: u32,
    members: &[Member],
    traits: &[CopyTraits],
) -> Result<()> {
    let what = format!("clone session {session}");
    check_traits(description, traits, &what)?;
    let (map, max) = sessions(source, description)?;
    let mut value = members_value(&map, members, max, &what)?;
    let at = traits_offset(max);
    if traits.iter().any(|t| *t != CopyTraits::default()) && value.len() < at + 8 * max as usize {
        return Err(RuntimeError::Value(format!(
            "{what}: this pipeline's clone sessions hold no class of service or length; compile and load it again"
        )));
    }
    let words = traits
        .iter()
        .flat_map(|t| [t.class_of_service, t.packet_length_bytes]);
    let slots = value.get_mut(at..).unwrap_or_default().chunks_exact_mut(4);
    for (slot, word) in slots.zip(words) {
        slot.copy_from_slice(&word.to_ne_bytes());
    }
    map.write(&session.to_ne_bytes(), &value, Write::Replace)?;
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

/// Every session with its members and their copies' traits.
pub fn list_sessions_with_traits(
    source: &impl MapSource,
    description: &Pipeline,
) -> Result<Vec<(u32, MembersWithTraits)>> {
    let (map, max) = sessions(source, description)?;
    let at = traits_offset(max);
    let mut out = vec![];
    for (session, members) in read_members(&map)? {
        let value = map
            .read(&session.to_ne_bytes())?
            .into_iter()
            .next()
            .unwrap_or_default();
        let with_traits = members
            .into_iter()
            .enumerate()
            .map(|(i, member)| {
                let slot = at + 8 * i;
                let traits = CopyTraits {
                    class_of_service: word_at(&value, slot),
                    packet_length_bytes: word_at(&value, slot + 4),
                };
                (member, traits)
            })
            .collect();
        out.push((session, with_traits));
    }
    Ok(out)
}

/// Where the traits start in a session's value: after the count and
/// `max` (port, instance) pairs.
fn traits_offset(max: u32) -> usize {
    4 + 8 * max as usize
}

/// The word at `offset`, or 0 past the value's end (a pipeline compiled
/// before sessions had traits).
fn word_at(value: &[u8], offset: usize) -> u32 {
    if value.len() < offset + 4 {
        return 0;
    }
    u32_at(value, offset)
}

/// Class of service and truncation are PSA's; lengths the kernel cannot
/// cut to are refused here rather than dropping every copy.
fn check_traits(description: &Pipeline, traits: &[CopyTraits], what: &str) -> Result<()> {
    for t in traits {
        if *t != CopyTraits::default() && description.architecture != Architecture::Psa {
            return Err(RuntimeError::Value(format!(
                "{what}: a class of service or length per clone is PSA's; program `{}` is not a PSA program",
                description.program
            )));
        }
        if t.class_of_service > MAX_CLASS_OF_SERVICE {
            return Err(RuntimeError::Value(format!(
                "{what}: class of service {} does not fit ClassOfService_t (0 to {MAX_CLASS_OF_SERVICE})",
                t.class_of_service
            )));
        }
        if (1..MIN_PACKET_LENGTH).contains(&t.packet_length_bytes) {
            return Err(RuntimeError::Value(format!(
                "{what}: packet length {} is shorter than the Ethernet header the kernel keeps ({MIN_PACKET_LENGTH} bytes; 0 does not cut)",
                t.packet_length_bytes
            )));
        }
    }
    Ok(())
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
