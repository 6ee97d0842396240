//! `p4bpf mcast set|del|list`: a loaded pipeline's multicast groups. A
//! thin shell over `p4bpf_runtime::multicast`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, print_lines, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::multicast::{self, Member};
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf mcast set PIPELINE GROUP PORT[:RID]...
       p4bpf mcast del PIPELINE GROUP
       p4bpf mcast list PIPELINE [--json]

set   makes GROUP (1 and up: 0 means no multicast) send one copy out of each
      PORT, with egress_rid RID (default 0); replaces the group's members.
del   removes GROUP: packets for it go nowhere.
list  groups as `GROUP<tab>PORT:RID ...`.

A program has groups when it sets a multicast group (v1model's mcast_grp)
and was compiled for TC.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &[]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("mcast")),
    };
    let positional: Vec<&str> = words.positional.iter().map(String::as_str).collect();
    let (command, name, rest) = match positional.as_slice() {
        [command @ ("set" | "del"), name, group, rest @ ..] => {
            (*command, *name, (Some(*group), rest))
        }
        ["list", name] => ("list", *name, (None, &[][..])),
        _ => {
            return UsageError::new("expected `set|del PIPELINE GROUP ...` or `list PIPELINE`")
                .report(Some("mcast"))
        }
    };
    let group = match rest.0.map(|g| g.parse::<u32>()) {
        Some(Err(_)) => {
            return UsageError::new("GROUP must be a number (1 to 4294967295)")
                .report(Some("mcast"))
        }
        Some(Ok(group)) => group,
        None => 0,
    };
    let members = match rest
        .1
        .iter()
        .map(|m| member(m))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(members) => members,
        Err(error) => return error.report(Some("mcast")),
    };
    if command == "del" && !members.is_empty() {
        return UsageError::new("`del` takes no members").report(Some("mcast"));
    }
    let deployment = match Deployment::open_with(name, command != "list") {
        Ok(deployment) => deployment,
        Err(error) => return fail(error),
    };
    let description = &deployment.description;
    let result = match command {
        "set" => multicast::set_group(&deployment, description, group, &members)
            .map(|()| vec![format!("group {group}: {} members", members.len())]),
        "del" => multicast::delete_group(&deployment, description, group)
            .map(|()| vec![format!("removed group {group}")]),
        _ => multicast::list_groups(&deployment, description).map(|groups| {
            groups
                .iter()
                .map(|(group, members)| render(*group, members, words.json))
                .collect()
        }),
    };
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}

/// `PORT` or `PORT:RID`.
fn member(text: &str) -> Result<Member, UsageError> {
    let (port, rid) = text.split_once(':').unwrap_or((text, "0"));
    match (port.parse(), rid.parse()) {
        (Ok(port), Ok(rid)) => Ok(Member { port, rid }),
        _ => Err(UsageError::new(format!(
            "member `{text}`: expected PORT or PORT:RID (numbers)"
        ))),
    }
}

fn render(group: u32, members: &[Member], json: bool) -> String {
    if json {
        let list: Vec<String> = members
            .iter()
            .map(|m| format!("{{\"port\": {}, \"rid\": {}}}", m.port, m.rid))
            .collect();
        format!("{{\"group\": {group}, \"members\": [{}]}}", list.join(", "))
    } else {
        let list: Vec<String> = members
            .iter()
            .map(|m| format!("{}:{}", m.port, m.rid))
            .collect();
        format!("{group}\t{}", list.join(" "))
    }
}
