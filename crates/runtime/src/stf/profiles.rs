//! BMv2's action profile commands in STF, as its runtime CLI spells them:
//! `act_prof_create_member PROFILE ACTION [VALUE...]` (or `ACTION(P:V,
//! ...)`), `act_prof_modify_member PROFILE MEMBER ACTION [VALUE...]`,
//! `act_prof_create_group PROFILE`, `act_prof_add_member_to_group
//! PROFILE MEMBER GROUP`, `act_prof_remove_member_from_group PROFILE MEMBER
//! GROUP`, `act_prof_delete_member PROFILE MEMBER`, `act_prof_delete_group
//! PROFILE GROUP`. Members and groups are numbered from 0 per profile in
//! creation order, as BMv2 hands out handles. `table_indirect_add TABLE
//! KEY... => MEMBER [PRIORITY]` and its `_with_group` and
//! `table_indirect_set_default[_with_group]` kin become `add` and
//! `setdefault` with the reference actions `member` and `group`.
//! `table_indirect_set_empty_group_action TABLE ACTION [VALUE...]` (or
//! `ACTION(P:V, ...)`) changes PSA's `psa_empty_group_action` of TABLE;
//! BMv2 has no such command, PSA-eBPF's `nikss-ctl action-selector
//! empty-group-action` is the model.

use super::parse::{ActionCall, Command};
use crate::error::Result;
use crate::packet_target::PacketTarget;
use crate::{empty_group, profile};
use p4bpf_layout::{GROUP_ACTION, MEMBER_ACTION};
use std::collections::HashMap;

/// A member's arguments: (parameter name, or none for "the next one";
/// value text).
pub type MemberArgs = Vec<(Option<String>, String)>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileCommand {
    CreateMember {
        profile: String,
        action: String,
        args: MemberArgs,
    },
    ModifyMember {
        profile: String,
        member: u32,
        action: String,
        args: MemberArgs,
    },
    CreateGroup {
        profile: String,
    },
    AddToGroup {
        profile: String,
        member: u32,
        group: u32,
    },
    RemoveFromGroup {
        profile: String,
        member: u32,
        group: u32,
    },
    DeleteMember {
        profile: String,
        member: u32,
    },
    DeleteGroup {
        profile: String,
        group: u32,
    },
    /// PSA's `psa_empty_group_action` of `table`, changed.
    SetEmptyGroupAction {
        table: String,
        action: String,
        args: MemberArgs,
    },
}

/// Parses `word`'s arguments (`word` is `act_prof_*` or `table_indirect_*`).
pub fn parse(word: &str, rest: &str) -> std::result::Result<Command, String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let number = |w: &str| {
        w.parse::<u32>()
            .map_err(|_| format!("`{word}`: expected a number, found `{w}`"))
    };
    let command = |c| Ok(Command::Profile(c));
    match (word, words.as_slice()) {
        ("act_prof_create_member", [profile, call, values @ ..]) => {
            let (action, args) = member_action(call, values, rest)?;
            command(ProfileCommand::CreateMember {
                profile: profile.to_string(),
                action,
                args,
            })
        }
        ("act_prof_modify_member", [profile, member, call, values @ ..]) => {
            let (action, args) = member_action(call, values, rest)?;
            command(ProfileCommand::ModifyMember {
                profile: profile.to_string(),
                member: number(member)?,
                action,
                args,
            })
        }
        ("act_prof_create_group", [profile]) => command(ProfileCommand::CreateGroup {
            profile: profile.to_string(),
        }),
        ("act_prof_add_member_to_group", [profile, member, group]) => {
            command(ProfileCommand::AddToGroup {
                profile: profile.to_string(),
                member: number(member)?,
                group: number(group)?,
            })
        }
        ("act_prof_remove_member_from_group", [profile, member, group]) => {
            command(ProfileCommand::RemoveFromGroup {
                profile: profile.to_string(),
                member: number(member)?,
                group: number(group)?,
            })
        }
        ("act_prof_delete_member", [profile, member]) => command(ProfileCommand::DeleteMember {
            profile: profile.to_string(),
            member: number(member)?,
        }),
        ("act_prof_delete_group", [profile, group]) => command(ProfileCommand::DeleteGroup {
            profile: profile.to_string(),
            group: number(group)?,
        }),
        ("table_indirect_add" | "table_indirect_add_with_group", [table, rest @ ..]) => {
            let arrow = rest.iter().position(|w| *w == "=>").ok_or(format!(
                "`{word}`: expected `TABLE KEY... => HANDLE [PRIORITY]`"
            ))?;
            let (keys, after) = rest.split_at(arrow);
            let (handle, priority) = match after.get(1..).unwrap_or_default() {
                [handle] => (number(handle)?, None),
                [handle, priority] => (number(handle)?, Some(number(priority)?)),
                _ => {
                    return Err(format!(
                        "`{word}`: expected one handle (and a priority) after `=>`"
                    ))
                }
            };
            Ok(Command::Add {
                table: table.to_string(),
                priority,
                keys: keys
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (format!("key.field{i}"), v.to_string()))
                    .collect(),
                action: reference(word.ends_with("_with_group"), handle),
            })
        }
        (
            "table_indirect_set_default" | "table_indirect_set_default_with_group",
            [table, handle],
        ) => Ok(Command::SetDefault {
            table: table.to_string(),
            action: reference(word.ends_with("_with_group"), number(handle)?),
        }),
        ("table_indirect_set_empty_group_action", [table, call, values @ ..]) => {
            let (action, args) = member_action(call, values, rest)?;
            command(ProfileCommand::SetEmptyGroupAction {
                table: table.to_string(),
                action,
                args,
            })
        }
        _ => Err(format!("`{word}`: unexpected arguments `{rest}`")),
    }
}

/// `ACTION VALUE...` or `ACTION(P:V, ...)`.
fn member_action(
    call: &str,
    values: &[&str],
    rest: &str,
) -> std::result::Result<(String, MemberArgs), String> {
    let Some(open) = rest.find('(') else {
        let args = values.iter().map(|v| (None, v.to_string())).collect();
        return Ok((call.to_string(), args));
    };
    let text = rest.get(open..).unwrap_or_default();
    let name = call.split('(').next().unwrap_or_default().to_string();
    let parsed = super::parse::parse_call(&format!("{name}{text}"))?;
    Ok((
        parsed.name,
        parsed.args.into_iter().map(|(p, v)| (Some(p), v)).collect(),
    ))
}

fn reference(group: bool, id: u32) -> ActionCall {
    ActionCall {
        name: if group { GROUP_ACTION } else { MEMBER_ACTION }.to_string(),
        args: vec![("id".to_string(), id.to_string())],
    }
}

/// The handles a script has been given so far, per profile.
#[derive(Default)]
pub struct Profiles {
    members: HashMap<String, u32>,
    groups: HashMap<String, u32>,
}

impl Profiles {
    pub fn apply(&mut self, target: &impl PacketTarget, command: &ProfileCommand) -> Result<()> {
        let description = target.description();
        match command {
            ProfileCommand::CreateMember {
                profile: name,
                action,
                args,
            } => {
                let p = profile::find(description, name)?;
                let member = *self.members.entry(p.name.clone()).or_default();
                let words = member_words(&p.members, action, args)?;
                profile::add_member(target, p, member, &words)?;
                self.members.insert(p.name.clone(), member + 1);
                Ok(())
            }
            ProfileCommand::ModifyMember {
                profile: name,
                member,
                action,
                args,
            } => {
                let p = profile::find(description, name)?;
                profile::modify_member(target, p, *member, &member_words(&p.members, action, args)?)
            }
            ProfileCommand::CreateGroup { profile: name } => {
                let p = profile::find(description, name)?;
                let group = *self.groups.entry(p.name.clone()).or_default();
                profile::add_group(target, p, group)?;
                self.groups.insert(p.name.clone(), group + 1);
                Ok(())
            }
            ProfileCommand::AddToGroup {
                profile: name,
                member,
                group,
            } => {
                let p = profile::find(description, name)?;
                let mut members = group_members(target, p, *group)?;
                if !members.contains(member) {
                    members.push(*member);
                }
                profile::set_members(target, p, *group, &members)
            }
            ProfileCommand::RemoveFromGroup {
                profile: name,
                member,
                group,
            } => {
                let p = profile::find(description, name)?;
                let mut members = group_members(target, p, *group)?;
                members.retain(|m| m != member);
                profile::set_members(target, p, *group, &members)
            }
            ProfileCommand::DeleteMember {
                profile: name,
                member,
            } => profile::delete_member(
                target,
                description,
                profile::find(description, name)?,
                *member,
            ),
            ProfileCommand::DeleteGroup {
                profile: name,
                group,
            } => profile::delete_group(
                target,
                description,
                profile::find(description, name)?,
                *group,
            ),
            ProfileCommand::SetEmptyGroupAction {
                table,
                action,
                args,
            } => {
                let choices = empty_group::choices(description, table)?;
                let words = member_words(&choices, action, args)?;
                empty_group::set(target, description, table, &words)
            }
        }
    }
}

fn group_members(
    target: &impl PacketTarget,
    p: &p4bpf_layout::ActionProfile,
    group: u32,
) -> Result<Vec<u32>> {
    let groups = profile::list_groups(target, p)?;
    match groups.into_iter().find(|(g, _)| *g == group) {
        Some((_, members)) => Ok(members),
        None => Err(crate::error::RuntimeError::Value(format!(
            "action selector `{}` has no group {group}",
            p.name
        ))),
    }
}

/// `ACTION PARAM=VALUE...` words, positional values given the names of
/// the action's parameters in order.
fn member_words(
    members: &p4bpf_layout::Table,
    action: &str,
    args: &MemberArgs,
) -> Result<Vec<String>> {
    let index = crate::names::action(members, action)?;
    let params = members
        .actions
        .get(index)
        .map(|a| a.params.as_slice())
        .unwrap_or_default();
    let mut words = vec![action.to_string()];
    for (position, (name, value)) in args.iter().enumerate() {
        let name = match name {
            Some(name) => name.clone(),
            None => match params.get(position) {
                Some(param) => param.name.clone(),
                None => {
                    return Err(crate::error::RuntimeError::Value(format!(
                        "`{}`: action `{action}` takes {} parameters, {} given",
                        members.name,
                        params.len(),
                        args.len()
                    )))
                }
            },
        };
        words.push(format!("{name}={value}"));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(rest: &str) -> std::result::Result<Command, String> {
        parse("table_indirect_set_empty_group_action", rest)
    }

    #[test]
    fn empty_group_action_takes_values_in_order_or_by_name() {
        let by_order = ProfileCommand::SetEmptyGroupAction {
            table: "Ig.t".into(),
            action: "Ig.mark".into(),
            args: vec![(None, "5".into()), (None, "0x123".into())],
        };
        assert_eq!(
            parsed("Ig.t Ig.mark 5 0x123"),
            Ok(Command::Profile(by_order))
        );
        let by_name = ProfileCommand::SetEmptyGroupAction {
            table: "Ig.t".into(),
            action: "Ig.mark".into(),
            args: vec![
                (Some("port".into()), "5".into()),
                (Some("label".into()), "0x123".into()),
            ],
        };
        assert_eq!(
            parsed("Ig.t Ig.mark(port:5, label:0x123)"),
            Ok(Command::Profile(by_name))
        );
    }

    #[test]
    fn empty_group_action_needs_an_action() {
        let why = parsed("Ig.t").err().unwrap_or_default();
        assert!(
            why.contains("table_indirect_set_empty_group_action"),
            "{why}"
        );
    }
}
