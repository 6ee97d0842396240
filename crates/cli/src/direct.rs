//! `p4bpf counter get|reset` and `p4bpf meter set|get` for counters and
//! meters of table entries (direct), named like indexed ones: the entry is
//! given by its key (`FIELD=VALUE` words) instead of an index. A thin
//! shell over `p4bpf_runtime::direct`.

use crate::control_output::{fail, json_object, print_lines};
use p4bpf_layout::{DirectExtern, Pipeline, Table};
use p4bpf_runtime::control;
use p4bpf_runtime::counter::CounterValue;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::direct;
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::error::{Result, RuntimeError};
use p4bpf_runtime::meter::MeterConfig;
use p4bpf_runtime::names;
use std::process::ExitCode;

/// The tables holding a direct extern named `name`, with it.
fn find<'d>(description: &'d Pipeline, name: &str) -> Vec<(&'d Table, &'d DirectExtern)> {
    description
        .tables
        .iter()
        .filter_map(|t| Some((t, names::direct(description, name, &t.name).ok()?)))
        .collect()
}

/// `counter get|reset PIPELINE NAME [FIELD=VALUE...]` when `name` is a
/// direct counter and no indexed one; `None` leaves it to `counter`.
pub fn counter(
    command: &str,
    pipeline: &str,
    name: &str,
    keys: &[String],
    json: bool,
) -> Option<ExitCode> {
    let deployment = Deployment::open(pipeline).ok()?;
    let description = &deployment.description;
    if names::counter(description, name).is_ok() {
        return None;
    }
    let found = find(description, name);
    if found.is_empty() {
        return None;
    }
    let mut lines = vec![];
    for (table, counter) in &found {
        let spec = match keys {
            [] => None,
            _ => match control::parse_key(table, keys, None) {
                Ok(spec) => Some(spec),
                // The key names another table's fields.
                Err(_) if found.len() > 1 => continue,
                Err(error) => return Some(fail(error)),
            },
        };
        let done = match command {
            "get" => get(&deployment, table, counter, spec.as_ref(), json),
            "reset" => {
                direct::reset_counter(&deployment, table, counter, spec.as_ref()).map(|()| vec![])
            }
            other => Err(RuntimeError::Value(format!(
                "unknown counter command `{other}` (get, reset)"
            ))),
        };
        match done {
            Ok(more) => lines.extend(more),
            Err(error) => return Some(fail(error)),
        }
    }
    Some(print_lines(&lines))
}

/// One line per entry (or the one `spec` keys): its key and counts.
fn get(
    deployment: &Deployment,
    table: &Table,
    counter: &DirectExtern,
    spec: Option<&EntrySpec>,
    json: bool,
) -> Result<Vec<String>> {
    let counted = match spec {
        Some(spec) => {
            let value = direct::read_counter(deployment, table, counter, spec)?;
            let entry = control::get(deployment, table, spec)?;
            vec![direct::DirectCount { entry, value }]
        }
        None => direct::counter_entries(deployment, table, counter)?,
    };
    Ok(counted
        .iter()
        .map(|c| render(&table.name, &c.entry.keys, c.value, json))
        .collect())
}

fn render(table: &str, keys: &[(String, String)], value: CounterValue, json: bool) -> String {
    let counts: Vec<(&str, u64)> = [("packets", value.packets), ("bytes", value.bytes)]
        .into_iter()
        .filter_map(|(what, n)| Some((what, n?)))
        .collect();
    if json {
        let body: String = counts
            .iter()
            .map(|(k, v)| format!(", \"{k}\": {v}"))
            .collect();
        return format!(
            "{{\"table\": \"{table}\", \"keys\": {}{body}}}",
            json_object(keys)
        );
    }
    let key: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let body: String = counts.iter().map(|(k, v)| format!("\t{k}={v}")).collect();
    format!("{table}\t{}{body}", key.join(" "))
}

/// `meter set PIPELINE METER FIELD=VALUE... PIR PBURST CIR CBURST` and
/// `meter get PIPELINE METER FIELD=VALUE...` for a direct meter; `None`
/// when `name` is no direct meter.
pub fn meter(command: &str, pipeline: &str, name: &str, words: &[String]) -> Option<ExitCode> {
    let deployment = match command {
        "set" => Deployment::open_for_writing(pipeline),
        _ => Deployment::open(pipeline),
    }
    .ok()?;
    let description = &deployment.description;
    if names::meter(description, name).is_ok() {
        return None;
    }
    let [(table, meter)] = find(description, name)[..] else {
        return None;
    };
    let keys: Vec<String> = words.iter().filter(|w| w.contains('=')).cloned().collect();
    let numbers: std::result::Result<Vec<u64>, _> = words
        .iter()
        .filter(|w| !w.contains('='))
        .map(|n| n.parse::<u64>())
        .collect();
    let result = control::parse_key(table, &keys, None).and_then(|spec| {
        match (command, numbers.as_deref()) {
            ("set", Ok([pir, pburst, cir, cburst])) => {
                let config = MeterConfig {
                    pir: *pir,
                    pburst: *pburst,
                    cir: *cir,
                    cburst: *cburst,
                };
                direct::set_meter(&deployment, table, meter, &spec, config).map(|()| vec![])
            }
            ("get", Ok([])) => direct::get_meter(&deployment, table, meter, &spec).map(|c| {
                vec![format!(
                    "pir={}\tpburst={}\tcir={}\tcburst={}",
                    c.pir, c.pburst, c.cir, c.cburst
                )]
            }),
            _ => Err(RuntimeError::Value(format!(
                "expected `meter set PIPELINE {name} FIELD=VALUE... PIR PBURST CIR CBURST` or `meter get PIPELINE {name} FIELD=VALUE...`"
            ))),
        }
    });
    Some(match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    })
}
