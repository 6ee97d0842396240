//! Plays an STF script against a loaded pipeline: table commands write
//! entries, each `packet` is one `BPF_PROG_TEST_RUN`, and the packets that
//! leave are matched, port by port and in order, against the `expect`
//! lines (the reference harness's rule; a packet nobody expects must be
//! dropped). Gives one report line per packet, with a byte diff, the port
//! and the verdict on failure.
//!
//! Dialect rule of the reference compiler's eBPF harness, kept here: it
//! writes key values into host-order (little-endian) C fields and the
//! program byte-swaps the packet field before an lpm lookup, so a numeric
//! lpm value in STF is the field's bytes read backwards (`0x010a/16` on a
//! 32-bit field means `10.1.0.0/16`). Dotted addresses are taken as written.
//! BMv2's harness, whose dialect v1model's and PSA's scripts are in (p4c
//! runs its PSA samples on BMv2's psa_switch), takes every value as
//! written.

use super::expect::Pattern;
use super::parse::{ActionCall, Command, CountKind, Line};
use super::registers;
use crate::entry::EntrySpec;
use crate::error::{Result, RuntimeError};
use crate::packet_target::PacketTarget;
use crate::pipeline::PacketOutcome;
use crate::verdict::Verdict;
use crate::{counter, names, table, value};
use p4bpf_layout::{Architecture, MatchKind, Pipeline, Table};
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Report lines in file order (a line may span several text lines).
    pub lines: Vec<String>,
    pub packets: usize,
    pub failures: usize,
    /// Set when the failures are all at frames the hook cannot carry
    /// (see `xdp_limit`): why the run is not applicable.
    pub not_applicable: Option<String>,
}

struct Sent {
    line: usize,
    number: usize,
    in_port: u32,
    result: Result<PacketOutcome>,
}

/// Run `script` (parsed from `file`) against `pipeline`.
pub fn run(pipeline: &impl PacketTarget, file: &Path, script: &[Line]) -> Outcome {
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut report: Vec<(usize, String, bool)> = Vec::new();
    let mut sent: Vec<Sent> = Vec::new();
    let mut expects: BTreeMap<u32, VecDeque<(usize, Pattern)>> = BTreeMap::new();
    let mut replication = super::replication::Replication::default();
    let mut profiles = super::profiles::Profiles::default();
    let mut digests = super::digests::DigestCheck::of(script);
    for line in script {
        let at = line.number;
        let problem = match &line.command {
            Command::Add {
                table,
                priority,
                keys,
                action,
            } => add(pipeline, table, *priority, keys, action),
            Command::SetDefault { table, action } => set_default(pipeline, table, action),
            Command::CheckCounter {
                counter,
                index,
                expected,
            } => match check_counter(pipeline, counter, *index, *expected) {
                Ok(text) => {
                    report.push((at, format!("{name}:{at}: {text}"), false));
                    Ok(())
                }
                Err(e) => Err(e),
            },
            Command::Delete {
                table,
                priority,
                keys,
            } => super::direct::delete(pipeline, table, *priority, keys),
            Command::CheckDirectCounter {
                counter,
                table,
                priority,
                keys,
                expected,
            } => super::direct::check(pipeline, counter, table, (*priority, keys), *expected)
                .map(|text| report.push((at, format!("{name}:{at}: {text}"), false))),
            Command::DirectMeterSet {
                meter,
                table,
                priority,
                keys,
                config,
            } => super::direct::meter_set(pipeline, meter, table, (*priority, keys), *config),
            Command::Packet { port, data } => {
                let number = sent.last().map_or(0, |s| s.number) + 1;
                if let Some(why) = super::p4tc::bypasses(pipeline.description(), *port) {
                    report.push((at, format!("packet ({name}:{at}) in port {port}: {why}"), false));
                    continue;
                }
                if let Some(note) = pipeline.route_note(data) {
                    report.push((at, format!("packet {number} ({name}:{at}): note: {note}"), false));
                }
                // One report line per packet that came out (copies too).
                let results = match pipeline.run_packet_copies(*port, data) {
                    Ok(outcomes) => outcomes.into_iter().map(Ok).collect(),
                    Err(error) => vec![Err(error)],
                };
                for result in results {
                    sent.push(Sent {
                        line: at,
                        number,
                        in_port: *port,
                        result,
                    });
                }
                if let Some(check) = digests.as_mut() {
                    check.after_packet(pipeline, at, number);
                }
                Ok(())
            }
            Command::Expect { port, pattern } => {
                expects
                    .entry(*port)
                    .or_default()
                    .push_back((at, pattern.clone()));
                Ok(())
            }
            Command::Wait | Command::ExpectDigest(_) => Ok(()),
            Command::Replication(command) => replication.apply(pipeline, command),
            Command::Profile(command) => profiles.apply(pipeline, command),
            Command::RegisterRead { register, index } => {
                registers::read(pipeline, pipeline.description(), register, index).map(|text| {
                    report.push((at, format!("{name}:{at}: {text}"), false));
                })
            }
            Command::RegisterWrite {
                register,
                index,
                value,
            } => {
                let description = pipeline.description();
                let ints = crate::int_value::Ints::BitsToo; // BMv2's scripts write an int's bits
                registers::write(pipeline, description, register, index, value, ints)
            }
            Command::RegisterReset { register } => {
                registers::reset(pipeline, pipeline.description(), register)
            }
            Command::ValueSetAdd { value_set, value } => {
                super::value_sets::add(pipeline, value_set, value)
            }
            Command::ExpireProfile {
                profile,
                nanoseconds,
            } => super::timers::set(pipeline, *profile, *nanoseconds),
            Command::CachePut { table, words } => super::table_cache::put(pipeline, table, words),
            Command::Modify {
                table,
                priority,
                keys,
                action,
            } => modify(pipeline, table, *priority, keys, action),
            Command::IdleSweep { expected } => {
                super::timers::sweep(pipeline, *expected).map(|found| {
                    for idle in found {
                        report.push((at, format!("{name}:{at}: {idle}"), false));
                    }
                })
            }
            Command::MeterSet {
                meter,
                index,
                config,
            } => names::meter(pipeline.description(), meter).and_then(|found| {
                let all = 0..found.size;
                let mut indexes = index.map_or(all, |i| i..i.saturating_add(1));
                indexes.try_for_each(|i| crate::meter::set(pipeline, found, i, *config))
            }),
            Command::MeterGet { meter, index } => names::meter(pipeline.description(), meter)
                .and_then(|found| crate::meter::get(pipeline, found, *index))
                .map(|config| {
                    let text = format!(
                        "{name}:{at}: meter {meter}({index}): committed {} per second, burst {}; peak {} per second, burst {}",
                        config.cir, config.cburst, config.pir, config.pburst
                    );
                    report.push((at, text, false));
                }),
        };
        if let Err(error) = problem {
            report.push((at, format!("{name}:{at}: error: {error}"), true));
        }
    }
    for packet in &sent {
        let (text, failed) = judge(packet, &mut expects);
        report.push((
            packet.line,
            format!(
                "packet {} ({name}:{}) in port {}: {text}",
                packet.number, packet.line, packet.in_port
            ),
            failed,
        ));
    }
    for (port, left) in &expects {
        for (at, _) in left {
            report.push((*at, format!("expect ({name}:{at}) port {port}: FAIL, no packet came out on port {port} for it"), true));
        }
    }
    if let Some(check) = digests {
        report.extend(check.report(pipeline.description(), &name));
    }
    report.sort_by_key(|(at, _, _)| *at);
    let failing: Vec<usize> = report.iter().filter(|r| r.2).map(|r| r.0).collect();
    let short = super::xdp_limit::short_frames(script);
    Outcome {
        not_applicable: super::xdp_limit::not_applicable(
            pipeline.description().hook,
            &failing,
            &short,
        ),
        failures: failing.len(),
        packets: sent.last().map_or(0, |s| s.number),
        lines: report.into_iter().map(|(_, text, _)| text).collect(),
    }
}

/// The report text of one packet and whether it failed; takes the expect
/// it is matched against off its port's queue.
fn judge(packet: &Sent, expects: &mut BTreeMap<u32, VecDeque<(usize, Pattern)>>) -> (String, bool) {
    let outcome = match &packet.result {
        Ok(outcome) => outcome,
        Err(error) => return (format!("FAIL: {error}"), true),
    };
    let verdict = outcome.verdict;
    if let Verdict::Unknown(code) = verdict {
        return (
            format!("FAIL: the program returned {code}, which the hook does not define"),
            true,
        );
    }
    if !verdict.delivers() {
        return (format!("{verdict}: ok (dropped)"), false);
    }
    let Some(port) = outcome.port else {
        return (
            format!("{verdict}: FAIL, the program did not record which port (no output record)"),
            true,
        );
    };
    match expects.get_mut(&port).and_then(VecDeque::pop_front) {
        Some((at, pattern)) if pattern.matches(&outcome.packet) => {
            (format!("{verdict} to port {port}: ok (expect at line {at})"), false)
        }
        Some((at, pattern)) => (
            format!(
                "{verdict} to port {port}: FAIL, differs from expect at line {at}\n{}",
                indent(&pattern.diff(&outcome.packet))
            ),
            true,
        ),
        None => (
            format!(
                "{verdict} to port {port}: FAIL, no packet was expected on port {port} (retval {})\n  got ({} bytes): {}",
                outcome.retval,
                outcome.packet.len(),
                hex(&outcome.packet)
            ),
            true,
        ),
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .chunks(4)
        .map(|c| c.iter().map(|b| format!("{b:02x}")).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

fn add(
    pipeline: &impl PacketTarget,
    table_name: &str,
    priority: Option<u32>,
    keys: &[(String, String)],
    call: &ActionCall,
) -> Result<()> {
    let table = names::table(pipeline.description(), table_name)?;
    let mut spec = key_spec(pipeline.description(), table, priority, keys)?;
    (spec.action, spec.args) = action_args(table, call)?;
    table::add_entry(pipeline, table, &spec)
}

/// A new action for the entry of `table` with `keys` and `priority`.
fn modify(
    pipeline: &impl PacketTarget,
    table_name: &str,
    priority: Option<u32>,
    keys: &[(String, String)],
    call: &ActionCall,
) -> Result<()> {
    let table = names::table(pipeline.description(), table_name)?;
    let mut spec = key_spec(pipeline.description(), table, priority, keys)?;
    (spec.action, spec.args) = action_args(table, call)?;
    crate::control::modify(pipeline, table, &spec)
}

/// The entry of `table` with `keys` (by field name) and `priority`.
pub(super) fn key_spec(
    pipeline: &Pipeline,
    table: &Table,
    priority: Option<u32>,
    keys: &[(String, String)],
) -> Result<EntrySpec> {
    let mut spec = EntrySpec {
        priority,
        ..EntrySpec::default()
    };
    for (field, text) in keys {
        let index = names::key_field(table, field)?;
        let text = match pipeline.architecture {
            // BMv2's harness writes lpm values as they are written; p4c's
            // PSA scripts are BMv2's (psa_switch) too.
            Architecture::V1Model | Architecture::Psa => text.clone(),
            // So does P4TC's, which hands them to `tc p4ctrl` (`p4tc`).
            _ if pipeline.p4tc => text.clone(),
            _ => key_text(table, index, text)?,
        };
        spec.keys.push((index, text));
    }
    Ok(spec)
}

fn set_default(pipeline: &impl PacketTarget, table_name: &str, call: &ActionCall) -> Result<()> {
    let table = names::table(pipeline.description(), table_name)?;
    let (action, args) = action_args(table, call)?;
    table::set_default(pipeline, table, action, &args)
}

/// The action's index and its arguments by position; parameters the
/// script leaves out are 0, as in the reference harness.
fn action_args(table: &Table, call: &ActionCall) -> Result<(usize, Vec<(usize, String)>)> {
    let action = names::action(table, &call.name)?;
    let mut args = Vec::new();
    for (param, text) in &call.args {
        args.push((names::param(table, action, param)?, text.clone()));
    }
    let count = table.actions.get(action).map_or(0, |a| a.params.len());
    for index in 0..count {
        if !args.iter().any(|(i, _)| *i == index) {
            args.push((index, "0".to_string()));
        }
    }
    Ok((action, args))
}

/// Apply the harness's lpm byte order rule (see the module docs).
fn key_text(table: &Table, index: usize, text: &str) -> Result<String> {
    let Some(key) = table
        .keys
        .get(index)
        .filter(|k| k.match_kind == MatchKind::Lpm)
    else {
        return Ok(text.to_string());
    };
    let (number, prefix) = text
        .split_once('/')
        .map_or((text, None), |(v, p)| (v, Some(p)));
    if number.contains(['.', ':']) {
        return Ok(text.to_string());
    }
    let width = key
        .field
        .byte_len
        .max(value::byte_len(key.field.bit_width) as u32)
        * 8;
    let mut bytes = value::parse(number, width).map_err(|why| {
        RuntimeError::Value(format!(
            "table `{}`, key field `{}`: {why}",
            table.name, key.field.name
        ))
    })?;
    bytes.reverse();
    let swapped: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(match prefix {
        Some(prefix) => format!("0x{swapped}/{prefix}"),
        None => format!("0x{swapped}"),
    })
}

fn check_counter(
    pipeline: &impl PacketTarget,
    name: &str,
    index: u32,
    expected: Option<(CountKind, u64)>,
) -> Result<String> {
    let found = names::counter(pipeline.description(), name)?;
    let value = counter::read(pipeline, found, index)?;
    let counts: Vec<String> = [("packets", value.packets), ("bytes", value.bytes)]
        .iter()
        .filter_map(|(what, count)| count.map(|n| format!("{what} {n}")))
        .collect();
    let shown = format!("counter {}({index}): {}", found.name, counts.join(", "));
    judge_counts(shown, value, expected)
}

/// `shown`, with `: ok` when `value` has the `expected` count (an error
/// saying what was expected otherwise).
pub(super) fn judge_counts(
    shown: String,
    value: counter::CounterValue,
    expected: Option<(CountKind, u64)>,
) -> Result<String> {
    let Some((kind, want)) = expected else {
        return Ok(shown);
    };
    let have = match kind {
        CountKind::Packets => value.packets,
        CountKind::Bytes => value.bytes,
    };
    if have == Some(want) {
        Ok(format!("{shown}: ok"))
    } else {
        let what = match kind {
            CountKind::Packets => "packets",
            CountKind::Bytes => "bytes",
        };
        Err(RuntimeError::Value(format!(
            "{shown}: expected {what} == {want}"
        )))
    }
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;
    use p4bpf_layout::{ByteOrder, FieldLayout, KeyField, TableStorage};

    fn sent(port: Option<u32>, verdict: Verdict, packet: &[u8]) -> Sent {
        let outcome = PacketOutcome {
            verdict,
            port,
            packet: packet.to_vec(),
            retval: 0,
        };
        Sent {
            line: 1,
            number: 1,
            in_port: 0,
            result: Ok(outcome),
        }
    }

    fn queue(entries: &[(u32, usize, &str)]) -> BTreeMap<u32, VecDeque<(usize, Pattern)>> {
        let mut expects: BTreeMap<u32, VecDeque<(usize, Pattern)>> = BTreeMap::new();
        for (port, line, text) in entries {
            expects
                .entry(*port)
                .or_default()
                .push_back((*line, Pattern::parse(text).unwrap()));
        }
        expects
    }

    #[test]
    fn outputs_take_their_ports_expects_in_order() {
        let mut expects = queue(&[(1, 5, "aa"), (1, 6, "bb"), (2, 7, "cc")]);
        assert!(!judge(&sent(Some(1), Verdict::Pass, &[0xaa]), &mut expects).1);
        let (text, failed) = judge(&sent(Some(1), Verdict::Pass, &[0xcc]), &mut expects);
        assert!(failed && text.contains("line 6"), "{text}");
        assert!(!judge(&sent(None, Verdict::Drop, &[]), &mut expects).1);
        let (text, failed) = judge(&sent(Some(3), Verdict::Redirect, &[0xcc]), &mut expects);
        assert!(
            failed && text.contains("no packet was expected on port 3"),
            "{text}"
        );
        assert_eq!(expects.get(&2).map(VecDeque::len), Some(1));
        assert!(judge(&sent(None, Verdict::Redirect, &[0xcc]), &mut expects).1);
        assert!(judge(&sent(None, Verdict::Unknown(9), &[]), &mut expects).1);
    }

    #[test]
    fn numeric_lpm_values_are_read_backwards_addresses_are_not() {
        let field = FieldLayout {
            name: "src".into(),
            bit_width: 32,
            byte_offset: 0,
            byte_len: 4,
            byte_order: ByteOrder::Network,
            signed: false,
        };
        let table = Table {
            name: "t".into(),
            map: "t".into(),
            storage: TableStorage::LpmTrie,
            size: 1,
            keys: vec![KeyField {
                field,
                match_kind: MatchKind::Lpm,
            }],
            key_size: 4,
            value_size: 4,
            actions: vec![],
            default_map: None,
            default_slot: 0,
            ternary: None,
        };
        assert_eq!(key_text(&table, 0, "0x010a/16").unwrap(), "0x0a010000/16");
        assert_eq!(key_text(&table, 0, "10.1.0.0/16").unwrap(), "10.1.0.0/16");
    }
}
