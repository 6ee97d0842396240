//! `p4bpf table add|modify|del|get|dump|default|clear|cache-put`: a pinned pipeline's
//! tables by P4 name. A thin shell over `p4bpf_runtime::control`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, json_object, print_lines, split, Words};
use p4bpf_runtime::control::{self, Entry};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::{empty_group, names, table, RuntimeError};
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf table add|modify PIPELINE TABLE KEY=VALUE... ACTION [PARAM=VALUE...] [--priority P]
       p4bpf table del|get PIPELINE TABLE KEY=VALUE... [--priority P] [--json]
       p4bpf table dump PIPELINE TABLE [--json]
       p4bpf table default PIPELINE TABLE ACTION [PARAM=VALUE...]
       p4bpf table empty-group-action PIPELINE TABLE [ACTION [PARAM=VALUE...]]
       p4bpf table clear PIPELINE TABLE
       p4bpf table load PIPELINE FILE
       p4bpf table cache-put PIPELINE TABLE KEY=VALUE... [selector.N=VALUE...] [hit=0]
                             ACTION [PARAM=VALUE...]

`load` reads entries from FILE (`-`: stdin), one a line as `table add` takes
them after the pipeline: `TABLE KEY=VALUE... ACTION [PARAM=VALUE...]
[--priority P]`; `#` starts a comment. All or nothing: an error names the
line and loads none of them.

`cache-put` writes a result into the table's cache (a pipeline compiled
with --table-caching): the packet whose key (every field a plain value)
and selector keys (`selector.0`, ... in the order the table lists them)
are given then runs ACTION, as a hit, or with `hit=0` as a miss, until
the table's next change. For tests that must tell a cached result from
the table's.

`empty-group-action` changes PSA's `psa_empty_group_action` of a table
with an action selector (the action an entry naming an empty group runs);
a `const` one cannot be changed. Without an action it prints the one set.

Tables, keys, actions and parameters go by P4 name (`MyIngress.routes`,
`hdr.ipv4.dstAddr`), by a unique last part (`routes`, `dstAddr`) or, for
keys, by position (`key.field0`). Values: decimal, 0x hex, 0b binary, IPv4,
IPv6, MAC; an int<W> key or parameter also takes a negative number in its
range (`-5`, `-0x5`); `VALUE/PREFIX` for lpm, `VALUE&&&MASK` for ternary,
`LO..HI` for range. Entries print as `KEY=VALUE...<tab>ACTION<tab>PARAM=VALUE...`
or, with --json, one JSON object per line.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &["--priority"]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("table")),
    };
    let priority = match words.option("--priority").map(str::parse::<u32>) {
        None => None,
        Some(Ok(priority)) => Some(priority),
        Some(Err(_)) => {
            return UsageError::new("`--priority` needs a whole number").report(Some("table"))
        }
    };
    let [command, pipeline, table_name, rest @ ..] = words.positional.as_slice() else {
        return UsageError::new("expected `table COMMAND PIPELINE TABLE ...`")
            .report(Some("table"));
    };
    if command == "load" {
        return match (rest, crate::table_load::load(pipeline, table_name)) {
            ([], Ok(done)) => print_lines(&[done]),
            ([], Err(why)) => fail(why),
            _ => UsageError::new("expected `table load PIPELINE FILE`").report(Some("table")),
        };
    }
    let opened = match command.as_str() {
        "get" | "dump" => Deployment::open(pipeline),
        _ => Deployment::open_for_writing(pipeline),
    };
    let result = opened.and_then(|deployment| {
        let table = names::table(&deployment.description, table_name)?.clone();
        tc_acl_allows(&deployment.description, &table.name, command)?;
        let keys_only = || control::parse_key(&table, rest, priority);
        match command.as_str() {
            "add" => {
                let spec = control::parse_entry(&table, rest, priority)?;
                control::add(&deployment, &table, &spec).map(|()| Vec::new())
            }
            "modify" => {
                let spec = control::parse_entry(&table, rest, priority)?;
                control::modify(&deployment, &table, &spec).map(|()| Vec::new())
            }
            "del" => control::delete(&deployment, &table, &keys_only()?).map(|()| Vec::new()),
            "get" => control::get(&deployment, &table, &keys_only()?)
                .map(|entry| vec![render(&entry, &words)]),
            "dump" if rest.is_empty() => control::dump(&deployment, &table)
                .map(|entries| entries.iter().map(|e| render(e, &words)).collect()),
            "default" => {
                let spec = control::parse_entry(&table, rest, None)?;
                if !spec.keys.is_empty() {
                    return Err(RuntimeError::Value("a default action takes no key".into()));
                }
                table::set_default(&deployment, &table, spec.action, &spec.args)
                    .map(|()| Vec::new())
            }
            "empty-group-action" if rest.is_empty() => {
                empty_group::get(&deployment, &deployment.description, &table.name)
                    .map(|set| vec![render_empty_group_action(set)])
            }
            "empty-group-action" => {
                empty_group::set(&deployment, &deployment.description, &table.name, rest)
                    .map(|()| Vec::new())
            }
            "cache-put" => {
                p4bpf_runtime::table_cache::put(&deployment, &deployment.description, &table, rest)
                    .map(|()| Vec::new())
            }
            "clear" if rest.is_empty() => control::clear(&deployment, &table)
                .map(|removed| vec![format!("removed {removed} entries")]),
            "dump" | "clear" => Err(RuntimeError::Value(format!(
                "`table {command}` takes no key or action"
            ))),
            other => Err(RuntimeError::Value(format!(
                "unknown table command `{other}` (add, modify, del, get, dump, default, empty-group-action, clear, cache-put)"
            ))),
        }
    });
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}

/// Refuses `command` on `table` when the table's P4TC `@tc_acl` does not
/// give the control plane the permission it needs.
fn tc_acl_allows(
    description: &p4bpf_layout::Pipeline,
    table: &str,
    command: &str,
) -> Result<(), RuntimeError> {
    let Some(acl) = description.table_acls.iter().find(|a| a.table == table) else {
        return Ok(());
    };
    let (letter, doing) = match command {
        "add" => ('C', "create entries in"),
        "modify" | "default" => ('U', "update"),
        "del" | "clear" => ('D', "delete entries of"),
        "get" | "dump" => ('R', "read"),
        _ => return Ok(()),
    };
    if acl.allows(letter) {
        return Ok(());
    }
    Err(RuntimeError::Value(format!(
        "table `{table}` does not let the control plane {doing} it: its @tc_acl(\"{}\") has no `{letter}` before the colon",
        acl.annotation
    )))
}

/// `ACTION<tab>PARAM=VALUE...`, or what runs while the control plane
/// has set none.
fn render_empty_group_action(set: Option<empty_group::SetAction>) -> String {
    let Some((action, params)) = set else {
        return "the program's own psa_empty_group_action".into();
    };
    let params: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{action}\t{}", params.join(" "))
}

fn render(entry: &Entry, words: &Words) -> String {
    let priority = entry.priority.map(|p| p.to_string());
    if words.json {
        let mut head = json_object(&[("action".into(), entry.action.clone())]);
        head.pop();
        let priority = priority
            .map(|p| format!(", \"priority\": {p}"))
            .unwrap_or_default();
        return format!(
            "{head}, \"keys\": {}, \"params\": {}{priority}}}",
            json_object(&entry.keys),
            json_object(&entry.params)
        );
    }
    let pairs = |list: &[(String, String)]| {
        list.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut line = format!(
        "{}\t{}\t{}",
        pairs(&entry.keys),
        entry.action,
        pairs(&entry.params)
    );
    if let Some(priority) = priority {
        line.push_str(&format!("\tpriority={priority}"));
    }
    line
}
