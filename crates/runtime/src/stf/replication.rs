//! BMv2's replication commands in STF: `mc_mgrp_create GROUP`,
//! `mc_node_create RID PORT...` (nodes are numbered from 0 in creation
//! order, as BMv2 hands out node handles), `mc_node_associate GROUP NODE`,
//! `mirroring_add SESSION PORT` (the session's one member, through
//! [`crate::clone_session`]), `mirroring_add_mc SESSION GROUP` (the
//! session's members are the group's, kept so as the group changes) and
//! `mirroring_get SESSION` (checks the session was added). Both adds take
//! PSA's clone session traits after the numbers, ours (BMv2's CLI has
//! none): `cos=N` (the copies' class of service) and `truncate=BYTES`
//! (their length; 0 does not cut). A group's
//! members are its nodes' (port, rid) pairs, written whole through
//! [`crate::multicast`] after every change.
//!
//! Copies are only seen where the packet target sees every frame that
//! leaves (the veth target, and the user target, which runs egress on
//! each copy); one `BPF_PROG_TEST_RUN` returns one packet, so `p4bpf
//! test --target kernel` plays such scripts on veth pairs, and a target
//! that sees no copies (a traced run) finds these commands an error.

use crate::clone_session::{self, CopyTraits};
use crate::error::{Result, RuntimeError};
use crate::multicast::{self, Member};
use crate::packet_target::PacketTarget;
use std::collections::BTreeMap;

/// A command; `WithTraits` is a mirroring add with settings (`cos=N`,
/// `truncate=BYTES`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicationCommand {
    GroupCreate { group: u32 },
    NodeCreate { rid: u32, ports: Vec<u32> },
    NodeAssociate { group: u32, node: u32 },
    MirroringAdd { session: u32, port: u32 },
    MirroringAddMc { session: u32, group: u32 },
    MirroringGet { session: u32 },
    WithTraits(Box<ReplicationCommand>, CopyTraits),
}

/// Parses the arguments of `word` (one of the commands above).
pub fn parse(word: &str, rest: &str) -> std::result::Result<ReplicationCommand, String> {
    let (settings, words): (Vec<&str>, Vec<&str>) =
        rest.split_whitespace().partition(|w| w.contains('='));
    let command = parse_numbers(word, &words.join(" "))?;
    if settings.is_empty() {
        return Ok(command);
    }
    let traits = copy_traits(word, &settings)?;
    Ok(ReplicationCommand::WithTraits(Box::new(command), traits))
}

/// `cos=N` and `truncate=BYTES`, on the two commands that add a session.
fn copy_traits(word: &str, settings: &[&str]) -> std::result::Result<CopyTraits, String> {
    let mut traits = CopyTraits::default();
    for setting in settings {
        let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
        let slot = match (word, key) {
            ("mirroring_add" | "mirroring_add_mc", "cos") => &mut traits.class_of_service,
            ("mirroring_add" | "mirroring_add_mc", "truncate") => &mut traits.packet_length_bytes,
            _ => return Err(format!("`{word}`: unknown setting `{setting}`")),
        };
        *slot = value
            .parse()
            .map_err(|_| format!("`{word}`: `{key}` takes a number, found `{value}`"))?;
    }
    Ok(traits)
}

fn parse_numbers(word: &str, rest: &str) -> std::result::Result<ReplicationCommand, String> {
    let numbers: Vec<u32> = rest
        .split_whitespace()
        .map(|w| {
            w.parse::<u32>()
                .map_err(|_| format!("`{word}`: expected numbers, found `{w}`"))
        })
        .collect::<std::result::Result<_, _>>()?;
    match (word, numbers.as_slice()) {
        ("mc_mgrp_create", [group]) => Ok(ReplicationCommand::GroupCreate { group: *group }),
        ("mc_node_create", [rid, ports @ ..]) => Ok(ReplicationCommand::NodeCreate {
            rid: *rid,
            ports: ports.to_vec(),
        }),
        ("mc_node_associate", [group, node]) => Ok(ReplicationCommand::NodeAssociate {
            group: *group,
            node: *node,
        }),
        ("mirroring_add", [session, port]) => Ok(ReplicationCommand::MirroringAdd {
            session: *session,
            port: *port,
        }),
        ("mirroring_add_mc", [session, group]) => Ok(ReplicationCommand::MirroringAddMc {
            session: *session,
            group: *group,
        }),
        ("mirroring_get", [session]) => Ok(ReplicationCommand::MirroringGet { session: *session }),
        _ => Err(format!("`{word}`: {}", usage(word))),
    }
}

fn usage(word: &str) -> &'static str {
    match word {
        "mc_mgrp_create" => "expected `mc_mgrp_create GROUP`",
        "mc_node_create" => "expected `mc_node_create RID PORT...`",
        "mc_node_associate" => "expected `mc_node_associate GROUP NODE`",
        "mirroring_add_mc" => "expected `mirroring_add_mc SESSION GROUP [cos=N] [truncate=BYTES]`",
        "mirroring_get" => "expected `mirroring_get SESSION`",
        _ => "expected `mirroring_add SESSION PORT [cos=N] [truncate=BYTES]`",
    }
}

/// The groups and nodes a script has made so far.
#[derive(Default)]
pub struct Replication {
    /// Node handle -> (rid, ports).
    nodes: Vec<(u32, Vec<u32>)>,
    /// Group -> node handles.
    groups: BTreeMap<u32, Vec<u32>>,
    /// Clone session -> the group it mirrors to (`mirroring_add_mc`), or
    /// none (`mirroring_add`, one port).
    sessions: BTreeMap<u32, Option<u32>>,
    /// Clone session -> what each of its copies gets.
    traits: BTreeMap<u32, CopyTraits>,
}

impl Replication {
    pub fn apply(
        &mut self,
        target: &impl PacketTarget,
        command: &ReplicationCommand,
    ) -> Result<()> {
        if !target.sees_copies() {
            return Err(RuntimeError::NotSupported(
                "multicast and clone copies are seen only on live ports: run this script with --target veth --hook tc"
                    .into(),
            ));
        }
        let (command, traits) = match command {
            ReplicationCommand::WithTraits(command, traits) => (&**command, *traits),
            command => (command, CopyTraits::default()),
        };
        let group = match command {
            ReplicationCommand::GroupCreate { group } => {
                self.groups.entry(*group).or_default();
                *group
            }
            ReplicationCommand::NodeCreate { rid, ports } => {
                self.nodes.push((*rid, ports.clone()));
                return Ok(());
            }
            ReplicationCommand::NodeAssociate { group, node } => {
                if self.nodes.get(*node as usize).is_none() {
                    return Err(RuntimeError::Value(format!("no multicast node {node}")));
                }
                let Some(nodes) = self.groups.get_mut(group) else {
                    return Err(RuntimeError::Value(format!(
                        "multicast group {group} was not created (mc_mgrp_create)"
                    )));
                };
                nodes.push(*node);
                *group
            }
            ReplicationCommand::MirroringAdd { session, port } => {
                self.sessions.insert(*session, None);
                self.traits.insert(*session, traits);
                // BMv2: a session mirrors to one port; its one copy is instance 0.
                let member = Member {
                    port: *port,
                    rid: 0,
                };
                return clone_session::set_session_with(
                    target,
                    target.description(),
                    *session,
                    &[member],
                    &[traits],
                );
            }
            ReplicationCommand::MirroringAddMc { session, group } => {
                if !self.groups.contains_key(group) {
                    return Err(RuntimeError::Value(format!(
                        "clone session {session}: multicast group {group} was not created (mc_mgrp_create)"
                    )));
                }
                self.sessions.insert(*session, Some(*group));
                self.traits.insert(*session, traits);
                return self.set_session(target, *session, *group);
            }
            ReplicationCommand::WithTraits(..) => {
                return Err(RuntimeError::Value(
                    "settings apply to one mirroring add".into(),
                ))
            }
            ReplicationCommand::MirroringGet { session } => {
                if self.sessions.contains_key(session) {
                    return Ok(());
                }
                return Err(RuntimeError::Value(format!(
                    "no clone session {session} (mirroring_add, mirroring_add_mc)"
                )));
            }
        };
        let members = self.members(group);
        multicast::set_group(target, target.description(), group, &members)?;
        // Sessions mirroring to the group follow it.
        for (session, _) in self.sessions.iter().filter(|(_, g)| **g == Some(group)) {
            self.set_session(target, *session, group)?;
        }
        Ok(())
    }

    /// Session `session` as a copy of `group`'s members, each with the
    /// session's traits.
    fn set_session(&self, target: &impl PacketTarget, session: u32, group: u32) -> Result<()> {
        let members = self.members(group);
        let traits = self.traits.get(&session).copied().unwrap_or_default();
        let all = vec![traits; members.len()];
        clone_session::set_session_with(target, target.description(), session, &members, &all)
    }

    /// The group's copies: each node's ports, in node order.
    fn members(&self, group: u32) -> Vec<Member> {
        let handles = self
            .groups
            .get(&group)
            .map(Vec::as_slice)
            .unwrap_or_default();
        handles
            .iter()
            .filter_map(|h| self.nodes.get(*h as usize))
            .flat_map(|(rid, ports)| {
                ports.iter().map(|port| Member {
                    port: *port,
                    rid: *rid,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_as_bmv2_writes_them() {
        assert_eq!(
            parse("mc_node_create", "7 2 3"),
            Ok(ReplicationCommand::NodeCreate {
                rid: 7,
                ports: vec![2, 3]
            })
        );
        assert_eq!(
            parse("mc_node_associate", "1 0"),
            Ok(ReplicationCommand::NodeAssociate { group: 1, node: 0 })
        );
        assert!(parse("mc_mgrp_create", "").is_err());
        assert!(parse("mirroring_add", "5 x").is_err_and(|e| e.contains("`x`")));
        assert_eq!(
            parse("mirroring_add_mc", "8 3"),
            Ok(ReplicationCommand::MirroringAddMc {
                session: 8,
                group: 3
            })
        );
        assert!(parse("mirroring_get", "8 3").is_err_and(|e| e.contains("mirroring_get SESSION")));
        assert_eq!(
            parse("mirroring_add", "4 5 cos=3 truncate=20"),
            Ok(ReplicationCommand::WithTraits(
                Box::new(ReplicationCommand::MirroringAdd {
                    session: 4,
                    port: 5
                }),
                CopyTraits {
                    class_of_service: 3,
                    packet_length_bytes: 20
                },
            ))
        );
        assert!(parse("mirroring_add", "4 5 cos=x").is_err_and(|e| e.contains("`cos`")));
        assert!(parse("mirroring_add", "4 5 color=1").is_err_and(|e| e.contains("`color=1`")));
        assert!(parse("mc_mgrp_create", "1 cos=1").is_err());
    }

    #[test]
    fn a_group_holds_its_nodes_ports_in_order() {
        let r = Replication {
            nodes: vec![(5, vec![1, 2]), (6, vec![3])],
            groups: BTreeMap::from([(9, vec![1, 0])]),
            sessions: BTreeMap::new(),
            traits: BTreeMap::new(),
        };
        let members = r.members(9);
        let pairs: Vec<(u32, u32)> = members.iter().map(|m| (m.port, m.rid)).collect();
        assert_eq!(pairs, [(3, 6), (1, 5), (2, 5)]);
    }
}
