//! `p4bpf counter get|reset`: a pinned pipeline's counters by P4 name,
//! summed over CPUs. A thin shell over `p4bpf_runtime::control`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, print_lines, split};
use p4bpf_runtime::control;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::names;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf counter get PIPELINE COUNTER [INDEX] [--json]
       p4bpf counter reset PIPELINE COUNTER [INDEX]
       p4bpf counter get|reset PIPELINE DIRECT_COUNTER [FIELD=VALUE...]

get    prints `INDEX<tab>packets=N<tab>bytes=N` per cell (every cell of a
       dense counter, the touched cells of a sparse one, or just INDEX).
reset  zeroes INDEX or every cell.
A direct counter (one per table entry) is read or reset per entry:
`TABLE<tab>FIELD=VALUE...<tab>packets=N<tab>bytes=N` for every entry, or
the entry the key names.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &[]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("counter")),
    };
    if let [command, pipeline, name, keys @ ..] = words.positional.as_slice() {
        if let Some(exit) = crate::direct::counter(command, pipeline, name, keys, words.json) {
            return exit;
        }
    }
    let (command, pipeline, name, index) = match words.positional.as_slice() {
        [c, p, n] => (c, p, n, None),
        [c, p, n, i] => match i.parse::<u32>() {
            Ok(index) => (c, p, n, Some(index)),
            Err(_) => {
                return UsageError::new(format!("bad counter index `{i}`")).report(Some("counter"))
            }
        },
        _ => {
            return UsageError::new("expected `counter get|reset PIPELINE COUNTER [INDEX]`")
                .report(Some("counter"))
        }
    };
    let result = Deployment::open(pipeline).and_then(|deployment| {
        let counter = names::counter(&deployment.description, name)?;
        match command.as_str() {
            "get" => control::counter_cells(&deployment, counter, index).map(|cells| {
                cells
                    .iter()
                    .map(|cell| {
                        let mut fields = vec![];
                        if let Some(packets) = cell.value.packets {
                            fields.push(("packets", packets));
                        }
                        if let Some(bytes) = cell.value.bytes {
                            fields.push(("bytes", bytes));
                        }
                        if words.json {
                            let body: Vec<String> = fields
                                .iter()
                                .map(|(k, v)| format!(", \"{k}\": {v}"))
                                .collect();
                            format!("{{\"index\": {}{}}}", cell.index, body.concat())
                        } else {
                            let body: Vec<String> =
                                fields.iter().map(|(k, v)| format!("\t{k}={v}")).collect();
                            format!("{}{}", cell.index, body.concat())
                        }
                    })
                    .collect()
            }),
            "reset" => control::reset_counter(&deployment, counter, index).map(|()| Vec::new()),
            other => Err(p4bpf_runtime::RuntimeError::Value(format!(
                "unknown counter command `{other}` (get, reset)"
            ))),
        }
    });
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}
