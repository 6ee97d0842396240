//! STF commands on table entries' state, p4bpf's own (BMv2's STF reads
//! direct counters only through its Thrift client): `delete TABLE
//! [PRIORITY] FIELD:VALUE...` removes an entry, `check_direct_counter
//! COUNTER TABLE [PRIORITY] FIELD:VALUE... [packets|bytes == N]` reads a
//! direct counter in one entry, and `direct_meter_set METER TABLE
//! [PRIORITY] FIELD:VALUE... PIR PBURST CIR CBURST` sets a direct meter's
//! rates (per second) and bursts in one entry.

use super::parse::{parse_count, parse_keys, Command, CountKind};
use super::run::{judge_counts, key_spec};
use crate::entry::EntrySpec;
use crate::error::Result;
use crate::meter::MeterConfig;
use crate::packet_target::PacketTarget;
use crate::{control, direct, names};
use p4bpf_layout::{Pipeline, Table};

pub(super) fn parse_delete(rest: &str) -> std::result::Result<Command, String> {
    let mut words = rest.split_whitespace();
    let table = words
        .next()
        .ok_or("usage: delete TABLE [PRIORITY] FIELD:VALUE...")?;
    let (priority, keys) = parse_keys(words)?;
    Ok(Command::Delete {
        table: table.to_string(),
        priority,
        keys,
    })
}

pub(super) fn parse_check(rest: &str) -> std::result::Result<Command, String> {
    const USAGE: &str =
        "usage: check_direct_counter COUNTER TABLE [PRIORITY] FIELD:VALUE... [packets|bytes == N]";
    let words: Vec<&str> = rest.split_whitespace().collect();
    let (entry, expected) = match words.as_slice() {
        [entry @ .., kind, "==" | "=", value] => (entry, Some(parse_count(kind, value)?)),
        entry => (entry, None),
    };
    let [counter, table, keys @ ..] = entry else {
        return Err(USAGE.into());
    };
    let (priority, keys) = parse_keys(keys.iter().copied())?;
    Ok(Command::CheckDirectCounter {
        counter: counter.to_string(),
        table: table.to_string(),
        priority,
        keys,
        expected,
    })
}

pub(super) fn parse_meter_set(rest: &str) -> std::result::Result<Command, String> {
    const USAGE: &str =
        "usage: direct_meter_set METER TABLE [PRIORITY] FIELD:VALUE... PIR PBURST CIR CBURST";
    let words: Vec<&str> = rest.split_whitespace().collect();
    let [meter, table, entry @ .., pir, pburst, cir, cburst] = words.as_slice() else {
        return Err(USAGE.into());
    };
    let number = |w: &str| {
        w.parse::<u64>()
            .map_err(|_| format!("`{w}` is not a whole number; {USAGE}"))
    };
    let (priority, keys) = parse_keys(entry.iter().copied())?;
    Ok(Command::DirectMeterSet {
        meter: meter.to_string(),
        table: table.to_string(),
        priority,
        keys,
        config: MeterConfig {
            pir: number(pir)?,
            pburst: number(pburst)?,
            cir: number(cir)?,
            cburst: number(cburst)?,
        },
    })
}

pub(super) fn meter_set(
    pipeline: &impl PacketTarget,
    meter: &str,
    table: &str,
    (priority, keys): (Option<u32>, &[(String, String)]),
    config: MeterConfig,
) -> Result<()> {
    let description = pipeline.description();
    let table = names::table(description, table)?;
    let found = names::direct(description, meter, &table.name)?;
    direct::set_meter(
        pipeline,
        table,
        found,
        &entry(pipeline.description(), table, priority, keys)?,
        config,
    )
}

pub(super) fn delete(
    pipeline: &impl PacketTarget,
    table: &str,
    priority: Option<u32>,
    keys: &[(String, String)],
) -> Result<()> {
    let table = names::table(pipeline.description(), table)?;
    control::delete(
        pipeline,
        table,
        &entry(pipeline.description(), table, priority, keys)?,
    )
}

/// The entry of `table` with `keys`, by its key alone.
fn entry(
    pipeline: &Pipeline,
    table: &Table,
    priority: Option<u32>,
    keys: &[(String, String)],
) -> Result<EntrySpec> {
    let spec = key_spec(pipeline, table, priority, keys)?;
    control::key_only(table, spec.keys, priority)
}

pub(super) fn check(
    pipeline: &impl PacketTarget,
    counter: &str,
    table: &str,
    (priority, keys): (Option<u32>, &[(String, String)]),
    expected: Option<(CountKind, u64)>,
) -> Result<String> {
    let description = pipeline.description();
    let table = names::table(description, table)?;
    let found = names::direct(description, counter, &table.name)?;
    let value = direct::read_counter(
        pipeline,
        table,
        found,
        &entry(description, table, priority, keys)?,
    )?;
    let entry: Vec<String> = keys.iter().map(|(f, v)| format!("{f}:{v}")).collect();
    let counts: Vec<String> = [("packets", value.packets), ("bytes", value.bytes)]
        .iter()
        .filter_map(|(what, count)| count.map(|n| format!("{what} {n}")))
        .collect();
    let shown = format!(
        "direct counter {} of {} [{}]: {}",
        found.name,
        table.name,
        entry.join(" "),
        counts.join(", ")
    );
    judge_counts(shown, value, expected)
}
