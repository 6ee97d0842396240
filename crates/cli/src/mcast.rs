//! `p4bpf mcast set|del|list`: a loaded pipeline's multicast groups, and
//! `p4bpf clone set|del|list`: its clone sessions, laid out alike. A thin
//! shell over `p4bpf_runtime::multicast` and `::clone_session`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, print_lines, split};
use p4bpf_runtime::clone_session::{self, CopyTraits, MembersWithTraits};
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

A program has groups when it sets a multicast group (v1model's mcast_grp,
PSA's multicast_group). At XDP each group is also a devmap of its members'
interfaces (rebuilt here and by `p4bpf port add`/`del`), whose program runs
egress on each copy.
";

pub const CLONE_USAGE: &str = "\
usage: p4bpf clone set PIPELINE SESSION PORT[:INSTANCE][,cos=N][,truncate=BYTES]...
       p4bpf clone del PIPELINE SESSION
       p4bpf clone list PIPELINE [--json]

set   makes clone session SESSION send one copy out of each PORT, seen by
      egress with instance INSTANCE (default 0); replaces its members.
      PSA programs: `cos=N` gives the copy class of service N (0 to 255,
      default 0: egress reads it, and at TC it is the copy's skb priority);
      `truncate=BYTES` cuts the copy to its first BYTES bytes before egress
      (14 and up; default 0: whole).
del   removes SESSION: clones to it go nowhere.
list  sessions as `SESSION<tab>PORT:INSTANCE[,cos=N][,truncate=BYTES] ...`.

A program has clone sessions when it clones (v1model's clone, PSA's
ostd.clone). At XDP (I2E clones only) each session is also a devmap of its
members' interfaces and every port.

PNA's mirror sessions are set the same way: `mirror_packet(slot, SESSION)`
sends each PORT a copy of the packet as the main deparser wrote it (the
instance is not used: PNA has no egress).
";

/// Which of a pipeline's replica sets a command manages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Groups,
    CloneSessions,
}

impl Kind {
    fn command(self) -> &'static str {
        match self {
            Kind::Groups => "mcast",
            Kind::CloneSessions => "clone",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Groups => "group",
            Kind::CloneSessions => "session",
        }
    }
}

pub fn run(words: Args) -> ExitCode {
    run_for(Kind::Groups, words)
}

pub fn run_clone(words: Args) -> ExitCode {
    run_for(Kind::CloneSessions, words)
}

fn run_for(kind: Kind, words: Args) -> ExitCode {
    let cmd = Some(kind.command());
    let words = match split(words, &[]) {
        Ok(words) => words,
        Err(error) => return error.report(cmd),
    };
    let positional: Vec<&str> = words.positional.iter().map(String::as_str).collect();
    let (command, name, rest) = match positional.as_slice() {
        [command @ ("set" | "del"), name, group, rest @ ..] => {
            (*command, *name, (Some(*group), rest))
        }
        ["list", name] => ("list", *name, (None, &[][..])),
        _ => {
            return UsageError::new("expected `set|del PIPELINE GROUP ...` or `list PIPELINE`")
                .report(cmd)
        }
    };
    let group = match rest.0.map(|g| g.parse::<u32>()) {
        Some(Err(_)) => {
            return UsageError::new(format!(
                "{} must be a number (1 to 4294967295)",
                kind.noun().to_uppercase()
            ))
            .report(cmd)
        }
        Some(Ok(group)) => group,
        None => 0,
    };
    let (members, traits): (Vec<Member>, Vec<CopyTraits>) = match rest
        .1
        .iter()
        .map(|m| member(m, kind))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(members) => members.into_iter().unzip(),
        Err(error) => return error.report(cmd),
    };
    if command == "del" && !members.is_empty() {
        return UsageError::new("`del` takes no members").report(cmd);
    }
    let deployment = match Deployment::open_with(name, command != "list") {
        Ok(deployment) => deployment,
        Err(error) => return fail(error),
    };
    let description = &deployment.description;
    let noun = kind.noun();
    let set = format!("{noun} {group}: {} members", members.len());
    let removed = format!("removed {noun} {group}");
    let (d, json) = (&deployment, words.json);
    let result = match (command, kind) {
        ("set", Kind::Groups) => {
            multicast::set_group(d, description, group, &members).map(|()| vec![set])
        }
        ("set", _) => clone_session::set_session_with(d, description, group, &members, &traits)
            .map(|()| vec![set]),
        ("del", Kind::Groups) => {
            multicast::delete_group(d, description, group).map(|()| vec![removed])
        }
        ("del", _) => clone_session::delete_session(d, description, group).map(|()| vec![removed]),
        (_, Kind::Groups) => multicast::list_groups(d, description).map(|g| render_all(&g, json)),
        _ => clone_session::list_sessions_with_traits(d, description)
            .map(|s| render_sessions(&s, json)),
    };
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}

/// `PORT` or `PORT:RID`; a clone session's member may add `,cos=N` and
/// `,truncate=BYTES`.
fn member(text: &str, kind: Kind) -> Result<(Member, CopyTraits), UsageError> {
    let mut parts = text.split(',');
    let address = parts.next().unwrap_or_default();
    let (port, rid) = address.split_once(':').unwrap_or((address, "0"));
    let member = match (port.parse(), rid.parse()) {
        (Ok(port), Ok(rid)) => Member { port, rid },
        _ => {
            return Err(UsageError::new(format!(
                "member `{text}`: expected PORT or PORT:RID (numbers)"
            )))
        }
    };
    let mut traits = CopyTraits::default();
    for part in parts {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let slot = match (kind, key) {
            (Kind::CloneSessions, "cos") => &mut traits.class_of_service,
            (Kind::CloneSessions, "truncate") => &mut traits.packet_length_bytes,
            _ => {
                return Err(UsageError::new(format!(
                    "member `{text}`: `{part}` is not one of {}",
                    match kind {
                        Kind::Groups => "a group member's (PORT or PORT:RID only)",
                        Kind::CloneSessions => "`cos=N`, `truncate=BYTES`",
                    }
                )))
            }
        };
        *slot = value.parse().map_err(|_| {
            UsageError::new(format!(
                "member `{text}`: `{key}` takes a number, found `{value}`"
            ))
        })?;
    }
    Ok((member, traits))
}

/// Clone sessions as listed: a member's traits only where not the default.
fn render_sessions(sessions: &[(u32, MembersWithTraits)], json: bool) -> Vec<String> {
    let plain = |(_, t): &(Member, CopyTraits)| *t == CopyTraits::default();
    sessions
        .iter()
        .map(|(id, members)| match members.iter().all(plain) {
            true => {
                let members: Vec<Member> = members.iter().map(|(m, _)| *m).collect();
                render(*id, &members, json)
            }
            false => render_with_traits(*id, members, json),
        })
        .collect()
}

fn render_with_traits(session: u32, members: &[(Member, CopyTraits)], json: bool) -> String {
    if json {
        let list: Vec<String> = members
            .iter()
            .map(|(m, t)| {
                format!(
                    "{{\"port\": {}, \"rid\": {}, \"cos\": {}, \"truncate\": {}}}",
                    m.port, m.rid, t.class_of_service, t.packet_length_bytes
                )
            })
            .collect();
        return format!(
            "{{\"group\": {session}, \"members\": [{}]}}",
            list.join(", ")
        );
    }
    let list: Vec<String> = members
        .iter()
        .map(|(m, t)| {
            let mut text = format!("{}:{}", m.port, m.rid);
            if t.class_of_service != 0 {
                text.push_str(&format!(",cos={}", t.class_of_service));
            }
            if t.packet_length_bytes != 0 {
                text.push_str(&format!(",truncate={}", t.packet_length_bytes));
            }
            text
        })
        .collect();
    format!("{session}\t{}", list.join(" "))
}

fn render_all(entries: &[(u32, Vec<Member>)], json: bool) -> Vec<String> {
    entries
        .iter()
        .map(|(id, members)| render(*id, members, json))
        .collect()
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
