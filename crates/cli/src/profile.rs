//! `p4bpf profile member|group ...`: a loaded pipeline's action profile
//! members and selector groups by P4 name. A thin shell over
//! `p4bpf_runtime::profile`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, print_lines, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::profile;
use p4bpf_runtime::RuntimeError;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf profile member add|modify PIPELINE PROFILE MEMBER ACTION [PARAM=VALUE...]
       p4bpf profile member del PIPELINE PROFILE MEMBER
       p4bpf profile member list PIPELINE PROFILE
       p4bpf profile group add|del PIPELINE SELECTOR GROUP
       p4bpf profile group set-members PIPELINE SELECTOR GROUP MEMBER...
       p4bpf profile group list PIPELINE SELECTOR

An action profile (v1model action_profile, PSA/PNA ActionProfile) holds
members: an action with its arguments, by MEMBER id. An action selector
(action_selector, ActionSelector) also holds groups of members; a packet
takes the member of a group that the hash of the table's `selector` keys
picks. A table naming the profile points at a member or a group:
`p4bpf table add PIPELINE TABLE KEY=VALUE... member 3` (or `group 2`).

A member or group in use (by a table entry or default, or a member by a
group) is not deleted; `set-members` takes only members that exist (one
may appear several times, for weight). Profiles go by P4 name or a unique
last part; actions and parameters as for `p4bpf table`. Lists print as
`MEMBER<tab>ACTION<tab>PARAM=VALUE...` and `GROUP<tab>MEMBER...`.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &[]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("profile")),
    };
    let positional: Vec<&str> = words.positional.iter().map(String::as_str).collect();
    let [kind @ ("member" | "group"), command, pipeline, name, rest @ ..] = positional.as_slice()
    else {
        return UsageError::new("expected `profile member|group COMMAND PIPELINE PROFILE ...`")
            .report(Some("profile"));
    };
    let deployment = match Deployment::open_with(pipeline, *command != "list") {
        Ok(deployment) => deployment,
        Err(error) => return fail(error),
    };
    let result = profile::find(&deployment.description, name).and_then(|p| {
        if *kind == "member" {
            member(&deployment, p, command, rest)
        } else {
            group(&deployment, p, command, rest)
        }
    });
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}

fn member(
    deployment: &Deployment,
    p: &p4bpf_layout::ActionProfile,
    command: &str,
    rest: &[&str],
) -> Result<Vec<String>, RuntimeError> {
    let description = &deployment.description;
    match (command, rest) {
        ("add" | "modify", [id, action @ ..]) if !action.is_empty() => {
            let id = number(id)?;
            let action: Vec<String> = action.iter().map(|w| w.to_string()).collect();
            if command == "add" {
                profile::add_member(deployment, p, id, &action)?;
            } else {
                profile::modify_member(deployment, p, id, &action)?;
            }
            Ok(vec![])
        }
        ("del", [id]) => profile::delete_member(deployment, description, p, number(id)?).map(|()| vec![]),
        ("list", []) => Ok(profile::list_members(deployment, p)?
            .iter()
            .map(|(id, entry)| {
                let params: Vec<String> = entry.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{id}\t{}\t{}", entry.action, params.join(" "))
            })
            .collect()),
        _ => Err(RuntimeError::Value(
            "expected `member add|modify ... MEMBER ACTION [PARAM=VALUE...]`, `member del ... MEMBER` or `member list ...`".into(),
        )),
    }
}

fn group(
    deployment: &Deployment,
    p: &p4bpf_layout::ActionProfile,
    command: &str,
    rest: &[&str],
) -> Result<Vec<String>, RuntimeError> {
    let description = &deployment.description;
    match (command, rest) {
        ("add", [id]) => profile::add_group(deployment, p, number(id)?).map(|()| vec![]),
        ("del", [id]) => profile::delete_group(deployment, description, p, number(id)?).map(|()| vec![]),
        ("set-members", [id, members @ ..]) => {
            let members = members.iter().map(|m| number(m)).collect::<Result<Vec<u32>, _>>()?;
            profile::set_members(deployment, p, number(id)?, &members)
                .map(|()| vec![format!("group {id}: {} members", members.len())])
        }
        ("list", []) => Ok(profile::list_groups(deployment, p)?
            .iter()
            .map(|(id, members)| {
                let members: Vec<String> = members.iter().map(u32::to_string).collect();
                format!("{id}\t{}", members.join(" "))
            })
            .collect()),
        _ => Err(RuntimeError::Value(
            "expected `group add|del ... GROUP`, `group set-members ... GROUP MEMBER...` or `group list ...`".into(),
        )),
    }
}

fn number(text: &str) -> Result<u32, RuntimeError> {
    text.parse().map_err(|_| {
        RuntimeError::Value(format!(
            "`{text}` is not an id (a number from 0 to 4294967295)"
        ))
    })
}
