//! `p4bpf value-set add|clear|show`: a pinned pipeline's parser value sets
//! by P4 name. A thin shell over `p4bpf_runtime::value_set`, which says how
//! each field's value is written.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, print_lines, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::value_set;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf value-set add PIPELINE SET VALUE...
       p4bpf value-set clear PIPELINE SET
       p4bpf value-set show PIPELINE SET

add    makes VALUE... a member of SET: one value per member field, as the
       field's @match takes it: VALUE (any kind), VALUE&&&MASK or 0x**01
       (ternary), VALUE/PREFIX (lpm), LO..HI (range), * (any value, in a
       field that is not exact); an all-exact struct set also takes its
       fields' values concatenated, as BMv2's pvs_add does. A member the
       set holds already stays once; a full set refuses one more.
clear  empties SET.
show   prints each member on a line, its fields tab-separated as add takes them.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &[]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("value-set")),
    };
    let (command, pipeline, name, values) = match words.positional.as_slice() {
        [c, p, n, values @ ..] => (c.as_str(), p, n, values),
        _ => {
            return UsageError::new("expected `value-set add|clear|show PIPELINE SET ...`")
                .report(Some("value-set"))
        }
    };
    let result = Deployment::open(pipeline).and_then(|deployment| {
        let set = value_set::find(&deployment.description, name)?;
        match (command, values) {
            ("add", [_, ..]) => {
                let texts: Vec<&str> = values.iter().map(String::as_str).collect();
                let member = value_set::parse_member(set, &texts)?;
                value_set::add(&deployment, set, &member).map(|()| vec![])
            }
            ("clear", []) => value_set::replace(&deployment, set, &[]).map(|()| vec![]),
            ("show", []) => value_set::members(&deployment, set).map(|members| {
                members
                    .iter()
                    .map(|m| value_set::member_text(m).join("\t"))
                    .collect()
            }),
            (other, _) => Err(p4bpf_runtime::RuntimeError::Value(format!(
                "`value-set {other}` takes: add PIPELINE SET VALUE..., clear PIPELINE SET, show PIPELINE SET"
            ))),
        }
    });
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}
