//! Parses STF text. One command per line, `#` starts a comment:
//! `add TABLE [PRIORITY] FIELD:VALUE... ACTION(PARAM:VALUE, ...)`,
//! `setdefault TABLE ACTION(...)`, `packet PORT HEX...`,
//! `expect PORT [HEX|*...] [$]`, `check_counter NAME(INDEX) [packets|bytes
//! == N]`, `wait`, and BMv2's `register_read NAME INDEX`, `register_write
//! NAME INDEX VALUE`, `register_reset NAME`, `counter_read NAME INDEX`.
//! Commands of other targets (multicast groups, mirroring, meters) are
//! reported as unsupported at their line.

use super::expect::Pattern;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number in the file.
    pub number: usize,
    pub command: Command,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionCall {
    pub name: String,
    /// (parameter name, value text).
    pub args: Vec<(String, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountKind {
    Packets,
    Bytes,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Add {
        table: String,
        priority: Option<u32>,
        keys: Vec<(String, String)>,
        action: ActionCall,
    },
    SetDefault {
        table: String,
        action: ActionCall,
    },
    Packet {
        port: u32,
        data: Vec<u8>,
    },
    Expect {
        port: u32,
        pattern: Pattern,
    },
    CheckCounter {
        counter: String,
        index: u32,
        expected: Option<(CountKind, u64)>,
    },
    /// `delete TABLE [PRIORITY] FIELD:VALUE...`: removes the entry.
    Delete {
        table: String,
        priority: Option<u32>,
        keys: Vec<(String, String)>,
    },
    /// `check_direct_counter COUNTER TABLE [PRIORITY] FIELD:VALUE...
    /// [packets|bytes == N]`: a direct counter's counts in one entry.
    CheckDirectCounter {
        counter: String,
        table: String,
        priority: Option<u32>,
        keys: Vec<(String, String)>,
        expected: Option<(CountKind, u64)>,
    },
    /// `direct_meter_set METER TABLE [PRIORITY] FIELD:VALUE... PIR PBURST
    /// CIR CBURST`: a direct meter's rates (per second) in one entry.
    DirectMeterSet {
        meter: String,
        table: String,
        priority: Option<u32>,
        keys: Vec<(String, String)>,
        config: crate::meter::MeterConfig,
    },
    Wait,
    /// Multicast groups and nodes, mirroring sessions (BMv2's commands).
    Replication(super::replication::ReplicationCommand),
    /// BMv2's `register_read NAME INDEX` (reported, not checked).
    /// `index`: a number, or a composite register's index fields
    /// (`register_composite`).
    RegisterRead {
        register: String,
        index: String,
    },
    RegisterWrite {
        register: String,
        index: String,
        value: String,
    },
    RegisterReset {
        register: String,
    },
    /// `meter_set NAME INDEX PIR PBURST CIR CBURST` (p4bpf's own, per
    /// second), BMv2's `meter_set_rates NAME INDEX C:CB P:PB` and
    /// `meter_array_set_rates NAME C:CB P:PB` (per microsecond; every
    /// index when `index` is `None`).
    MeterSet {
        meter: String,
        index: Option<u32>,
        config: crate::meter::MeterConfig,
    },
    /// BMv2's `meter_get_rates NAME INDEX`: reports the rates.
    MeterGet {
        meter: String,
        index: u32,
    },
    /// BMv2's `act_prof_*` commands (members and groups of a profile).
    Profile(super::profiles::ProfileCommand),
    /// BMv2's `pvs_add VALUE_SET VALUE...`: a member of a parser value set.
    ValueSetAdd {
        value_set: String,
        value: String,
    },
    /// `expect_digest NAME FIELD=VALUE...` (p4bpf's own).
    ExpectDigest(super::digests::DigestExpect),
    /// `expire_profile PROFILE NANOSECONDS` (p4bpf's own): PNA's idle
    /// timeout of an expire-time profile.
    ExpireProfile {
        profile: u32,
        nanoseconds: u64,
    },
    /// `idle_sweep COUNT` (p4bpf's own): a control-plane sweep of the
    /// entries with idle timers must find COUNT idle.
    IdleSweep {
        expected: usize,
    },
    /// `cache_put TABLE WORDS...` (p4bpf's own): a result written into
    /// the table's cache (`super::table_cache`).
    CachePut {
        table: String,
        words: Vec<String>,
    },
    /// `modify TABLE [PRIORITY] FIELD:VALUE... ACTION(...)` (p4bpf's own):
    /// a new action for an existing entry.
    Modify {
        table: String,
        priority: Option<u32>,
        keys: Vec<(String, String)>,
        action: ActionCall,
    },
}

/// A malformed STF line (or an unreadable file: line 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StfError {
    pub file: PathBuf,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for StfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

impl std::error::Error for StfError {}

pub fn parse_file(path: &Path) -> Result<Vec<Line>, Vec<StfError>> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(path, &text),
        Err(e) => Err(vec![StfError {
            file: path.to_path_buf(),
            line: 0,
            message: format!("cannot read: {e}"),
        }]),
    }
}

/// Every command of `text`, or every malformed line.
pub fn parse(file: &Path, text: &str) -> Result<Vec<Line>, Vec<StfError>> {
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let content = raw.split('#').next().unwrap_or_default().trim();
        if content.is_empty() {
            continue;
        }
        match parse_command(content) {
            Ok(command) => lines.push(Line {
                number: index + 1,
                command,
            }),
            Err(message) => errors.push(StfError {
                file: file.to_path_buf(),
                line: index + 1,
                message,
            }),
        }
    }
    if errors.is_empty() {
        Ok(lines)
    } else {
        Err(errors)
    }
}

fn parse_command(content: &str) -> Result<Command, String> {
    let (word, rest) = content
        .split_once(char::is_whitespace)
        .unwrap_or((content, ""));
    let rest = rest.trim();
    match word.to_ascii_lowercase().as_str() {
        "packet" => {
            let (port, data) = port_and_rest(rest)?;
            Ok(Command::Packet { port, data: hex_bytes(data)? })
        }
        "expect" => {
            let (port, data) = port_and_rest(rest)?;
            Ok(Command::Expect { port, pattern: Pattern::parse(data)? })
        }
        "add" => parse_add(rest),
        "setdefault" => {
            let (table, call) = rest.split_once(char::is_whitespace).ok_or("usage: setdefault TABLE ACTION(...)")?;
            Ok(Command::SetDefault { table: table.to_string(), action: parse_call(call.trim())? })
        }
        "check_counter" => parse_check_counter(rest),
        "check_direct_counter" => super::direct::parse_check(rest),
        "delete" => super::direct::parse_delete(rest),
        "direct_meter_set" => super::direct::parse_meter_set(rest),
        "expect_digest" => super::digests::parse(rest),
        "wait" => Ok(Command::Wait),
        "expire_profile" => super::timers::parse(rest),
        "idle_sweep" => super::timers::parse_sweep(rest),
        "cache_put" => super::table_cache::parse_put(rest),
        "modify" => super::table_cache::parse_modify(rest),
        w @ ("mc_mgrp_create" | "mc_node_create" | "mc_node_associate" | "mirroring_add"
        | "mirroring_add_mc" | "mirroring_get") => {
            super::replication::parse(w, rest).map(Command::Replication)
        }
        "register_read" | "register_write" | "register_reset" | "counter_read" => {
            parse_bmv2_state(word, rest)
        }
        "meter_set" => parse_meter_set(rest),
        "pvs_add" => super::value_sets::parse(rest),
        w if w.starts_with("act_prof_") || w.starts_with("table_indirect_") => {
            super::profiles::parse(w, rest)
        }
        "meter_set_rates" | "meter_array_set_rates" => {
            parse_bmv2_meter_rates(rest, word.eq_ignore_ascii_case("meter_set_rates"))
        }
        "meter_get_rates" => match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
            [meter, index] => Ok(Command::MeterGet {
                meter: meter.to_string(),
                index: index.parse().map_err(|_| format!("bad meter index `{index}`"))?,
            }),
            _ => Err("usage: meter_get_rates METER INDEX".into()),
        },
        other => Err(format!(
            "unsupported STF command `{other}` (supported: add, delete, setdefault, packet, expect, check_counter, wait, register_read, register_write, register_reset, counter_read, meter_set, meter_set_rates, meter_array_set_rates, meter_get_rates, mc_mgrp_create, mc_node_create, mc_node_associate, mirroring_add, mirroring_add_mc, mirroring_get, check_direct_counter, direct_meter_set, act_prof_*, table_indirect_*, pvs_add, cache_put, modify)"
        )),
    }
}

fn port_and_rest(rest: &str) -> Result<(u32, &str), String> {
    let (port, data) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let port = port
        .parse::<u32>()
        .map_err(|_| format!("expected a port number, found `{port}`"))?;
    Ok((port, data.trim()))
}

fn hex_bytes(data: &str) -> Result<Vec<u8>, String> {
    let nibbles: Vec<u8> = data
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| {
            c.to_digit(16)
                .map(|d| d as u8)
                .ok_or_else(|| format!("`{c}` is not a hex digit"))
        })
        .collect::<Result<_, _>>()?;
    // BMv2's runner reads the digits two at a time, so a last lone digit is
    // a byte of its own value.
    Ok(nibbles
        .chunks(2)
        .map(|pair| pair.iter().fold(0u8, |byte, n| byte << 4 | n))
        .collect())
}

pub(super) fn parse_add(rest: &str) -> Result<Command, String> {
    const USAGE: &str = "usage: add TABLE [PRIORITY] FIELD:VALUE... ACTION(PARAM:VALUE,...)";
    // The action call is the last word group and may contain spaces: it
    // starts at the word holding the first `(`.
    let before_call = rest
        .find('(')
        .and_then(|paren| rest.get(..paren))
        .unwrap_or(rest);
    let (head, call_name) = before_call.rsplit_once(char::is_whitespace).ok_or(USAGE)?;
    let call = rest
        .get(before_call.len() - call_name.len()..)
        .unwrap_or_default();
    let mut words = head.split_whitespace();
    let table = words.next().ok_or(USAGE)?.to_string();
    let (priority, keys) = parse_keys(words)?;
    Ok(Command::Add {
        table,
        priority,
        keys,
        action: parse_call(call.trim())?,
    })
}

/// An entry's priority, if any, and its keys as (field, value) words.
type EntryWords = (Option<u32>, Vec<(String, String)>);

/// `[PRIORITY] FIELD:VALUE...`: an entry's priority, if any, and keys.
pub(super) fn parse_keys<'w>(words: impl Iterator<Item = &'w str>) -> Result<EntryWords, String> {
    let mut priority = None;
    let mut keys = Vec::new();
    for word in words {
        match word.split_once(':') {
            Some((field, value)) if !field.is_empty() && !value.is_empty() => {
                keys.push((field.to_string(), value.to_string()))
            }
            _ if keys.is_empty() && priority.is_none() => {
                priority = Some(
                    word.parse::<u32>()
                        .map_err(|_| format!("`{word}` is neither a priority nor FIELD:VALUE"))?,
                )
            }
            _ => return Err(format!("`{word}` is not FIELD:VALUE")),
        }
    }
    Ok((priority, keys))
}

/// `NAME(P:V, P:V)` or a bare `NAME`.
pub(super) fn parse_call(text: &str) -> Result<ActionCall, String> {
    let Some((name, args)) = text.split_once('(') else {
        if text.is_empty() || text.contains(char::is_whitespace) {
            return Err(format!("expected an action call, found `{text}`"));
        }
        return Ok(ActionCall {
            name: text.to_string(),
            args: Vec::new(),
        });
    };
    let args = args
        .trim_end()
        .strip_suffix(')')
        .ok_or_else(|| format!("missing `)` in `{text}`"))?;
    let args = arg_texts(args)
        .iter()
        .map(|arg| match arg.split_once(':') {
            Some((param, value)) if !param.trim().is_empty() && !value.trim().is_empty() => {
                Ok((param.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(format!("action argument `{arg}` is not PARAM:VALUE")),
        })
        .collect::<Result<_, _>>()?;
    Ok(ActionCall {
        name: name.trim().to_string(),
        args,
    })
}

/// BMv2's `register_read NAME INDEX`, `register_write NAME INDEX VALUE`,
/// `register_reset NAME` and `counter_read NAME INDEX`.
fn parse_bmv2_state(word: &str, rest: &str) -> Result<Command, String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let index = |text: &str| {
        text.parse::<u32>()
            .map_err(|_| format!("`{word}`: `{text}` is not an index"))
    };
    let name = |text: &&str| text.to_string();
    match (word, words.as_slice()) {
        ("register_read", [register, i]) => Ok(Command::RegisterRead {
            register: name(register),
            index: i.to_string(),
        }),
        ("register_write", [register, i, value]) => Ok(Command::RegisterWrite {
            register: name(register),
            index: i.to_string(),
            value: value.to_string(),
        }),
        ("register_reset", [register]) => Ok(Command::RegisterReset {
            register: name(register),
        }),
        ("counter_read", [counter, i]) => Ok(Command::CheckCounter {
            counter: name(counter),
            index: index(i)?,
            expected: None,
        }),
        _ => Err(format!(
            "usage: register_read NAME INDEX, register_write NAME INDEX VALUE, register_reset NAME, counter_read NAME INDEX (found `{word} {rest}`)"
        )),
    }
}

/// The `P:V` texts of an argument list, separated by commas or, as
/// P4TC's scripts write them, by spaces (`dmac:0xAABB port:0x1`); a space
/// beside the colon (`P: V`) stays inside the argument.
fn arg_texts(args: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for word in args.split(|c: char| c == ',' || c.is_whitespace()) {
        let joins_last = word.starts_with(':') || out.last().is_some_and(|l| l.ends_with(':'));
        match out.last_mut() {
            Some(last) if joins_last => last.push_str(word),
            _ if word.is_empty() => {}
            _ => out.push(word.to_string()),
        }
    }
    out
}

fn parse_meter_set(rest: &str) -> Result<Command, String> {
    const USAGE: &str = "usage: meter_set METER INDEX PIR PBURST CIR CBURST";
    let words: Vec<&str> = rest.split_whitespace().collect();
    let [meter, numbers @ ..] = words.as_slice() else {
        return Err(USAGE.into());
    };
    let numbers: Vec<u64> = numbers
        .iter()
        .map(|n| {
            n.parse::<u64>()
                .map_err(|_| format!("`{n}` is not a number; {USAGE}"))
        })
        .collect::<Result<_, _>>()?;
    let [index, pir, pburst, cir, cburst] = numbers.as_slice() else {
        return Err(USAGE.into());
    };
    let index = u32::try_from(*index).map_err(|_| format!("meter index {index} is too large"))?;
    Ok(Command::MeterSet {
        meter: meter.to_string(),
        index: Some(index),
        config: crate::meter::MeterConfig {
            pir: *pir,
            pburst: *pburst,
            cir: *cir,
            cburst: *cburst,
        },
    })
}

/// BMv2's `meter_set_rates METER INDEX CIR:CBURST PIR:PBURST` (or
/// `meter_array_set_rates` without the index): rates in units per
/// microsecond, committed first.
fn parse_bmv2_meter_rates(rest: &str, one_index: bool) -> Result<Command, String> {
    let usage = if one_index {
        "usage: meter_set_rates METER INDEX CIR:CBURST PIR:PBURST"
    } else {
        "usage: meter_array_set_rates METER CIR:CBURST PIR:PBURST"
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let (meter, index, rates) = match (one_index, words.as_slice()) {
        (true, [meter, index, c, p]) => {
            let index = index
                .parse::<u32>()
                .map_err(|_| format!("bad meter index `{index}`"))?;
            (meter, Some(index), [c, p])
        }
        (false, [meter, c, p]) => (meter, None, [c, p]),
        _ => return Err(usage.into()),
    };
    let rate = |text: &str| -> Result<(u64, u64), String> {
        let (rate, burst) = text.split_once(':').ok_or(usage)?;
        let per_us: f64 = rate.parse().map_err(|_| format!("bad rate `{rate}`"))?;
        let burst: u64 = burst.parse().map_err(|_| format!("bad burst `{burst}`"))?;
        if !(0.0..=1e12).contains(&per_us) {
            return Err(format!("bad rate `{rate}`"));
        }
        Ok(((per_us * 1e6).round() as u64, burst))
    };
    let (cir, cburst) = rate(rates[0])?;
    let (pir, pburst) = rate(rates[1])?;
    Ok(Command::MeterSet {
        meter: meter.to_string(),
        index,
        config: crate::meter::MeterConfig {
            pir,
            pburst,
            cir,
            cburst,
        },
    })
}

fn parse_check_counter(rest: &str) -> Result<Command, String> {
    const USAGE: &str = "usage: check_counter NAME(INDEX) [packets|bytes == N]";
    let (name, after) = rest.split_once('(').ok_or(USAGE)?;
    let (index, condition) = after.split_once(')').ok_or(USAGE)?;
    let index =
        crate::value::parse(index.trim(), 32).map_err(|why| format!("counter index: {why}"))?;
    let index = index.iter().fold(0u32, |acc, b| acc << 8 | u32::from(*b));
    let words: Vec<&str> = condition.split_whitespace().collect();
    let expected = match words.as_slice() {
        [] => None,
        [kind, "==" | "=", value] => Some(parse_count(kind, value)?),
        _ => return Err(USAGE.to_string()),
    };
    Ok(Command::CheckCounter {
        counter: name.trim().to_string(),
        index,
        expected,
    })
}

/// `packets == N` or `bytes == N`, the words either side of `==`.
pub(super) fn parse_count(kind: &str, value: &str) -> Result<(CountKind, u64), String> {
    let kind = match kind {
        "packets" => CountKind::Packets,
        "bytes" => CountKind::Bytes,
        other => return Err(format!("expected `packets` or `bytes`, found `{other}`")),
    };
    let value = crate::value::parse(value, 64).map_err(|why| format!("counter value: {why}"))?;
    Ok((
        kind,
        value.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b)),
    ))
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;

    fn one(text: &str) -> Result<Command, String> {
        parse_command(text)
    }

    #[test]
    fn bmv2_register_and_counter_commands() {
        assert_eq!(
            one("register_write MyIngress.r 3 0x2a"),
            Ok(Command::RegisterWrite {
                register: "MyIngress.r".into(),
                index: "3".into(),
                value: "0x2a".into(),
            })
        );
        assert_eq!(
            one("register_read r 0"),
            Ok(Command::RegisterRead {
                register: "r".into(),
                index: "0".into(),
            })
        );
        assert_eq!(
            one("register_reset r"),
            Ok(Command::RegisterReset {
                register: "r".into()
            })
        );
        assert_eq!(
            one("counter_read c 2"),
            Ok(Command::CheckCounter {
                counter: "c".into(),
                index: 2,
                expected: None,
            })
        );
        assert!(one("register_write r 3").is_err());
        // A register's index is checked against the register when run: a
        // number, or a composite register's fields.
        assert!(one("register_read r 5,0xff").is_ok());
        assert!(one("counter_read c x").is_err());
    }

    #[test]
    fn add_with_priority_keys_and_spaced_arguments() {
        let command =
            one("add ipv6_tbl 3 mcast_key:0x1 ingress.set_mcast_grp(mcast_grp:1113, port:0x2)");
        assert_eq!(
            command,
            Ok(Command::Add {
                table: "ipv6_tbl".into(),
                priority: Some(3),
                keys: vec![("mcast_key".into(), "0x1".into())],
                action: ActionCall {
                    name: "ingress.set_mcast_grp".into(),
                    args: vec![
                        ("mcast_grp".into(), "1113".into()),
                        ("port".into(), "0x2".into())
                    ],
                },
            })
        );
        let lpm = one("add pipe_Check_src_ip 0 key.field0:0x010a/16 pipe_Reject()");
        assert!(
            matches!(lpm, Ok(Command::Add { keys, .. }) if keys == vec![("key.field0".into(), "0x010a/16".into())])
        );
        let ipv6 = one("add t k:2001:db8::1 a(x:00:11:22:33:44:55)");
        assert!(matches!(ipv6, Ok(Command::Add { keys, .. }) if keys[0].1 == "2001:db8::1"));
    }

    #[test]
    fn action_arguments_separated_by_spaces_as_p4tc_writes_them() {
        let args = |text: &str| match one(text) {
            Ok(Command::Add { action, .. }) => action.args,
            other => panic!("{other:?}"),
        };
        let expected: Vec<(String, String)> = vec![
            ("dmac".into(), "0xAABBCCDDEEFF".into()),
            ("port".into(), "0x1".into()),
        ];
        assert_eq!(args("add t k:0 a(dmac:0xAABBCCDDEEFF port:0x1)"), expected);
        assert_eq!(
            args("add t k:0 a(dmac: 0xAABBCCDDEEFF ,port :0x1)"),
            expected
        );
        assert!(one("add t k:0 a(dmac 0x1)").is_err());
    }

    #[test]
    fn bmv2_meter_rates_are_per_microsecond_committed_first() {
        let config = crate::meter::MeterConfig {
            pir: 20,
            pburst: 5,
            cir: 5,
            cburst: 4,
        };
        assert_eq!(
            one("meter_set_rates cIngress.meter0 2 0.000005:4 0.00002:5"),
            Ok(Command::MeterSet {
                meter: "cIngress.meter0".into(),
                index: Some(2),
                config,
            })
        );
        assert!(matches!(
            one("meter_array_set_rates m 0.000005:4 0.00002:5"),
            Ok(Command::MeterSet { index: None, .. })
        ));
        assert!(matches!(
            one("meter_set m 1 20 5 5 4"),
            Ok(Command::MeterSet { index: Some(1), config: c, .. }) if c == config
        ));
        assert!(one("meter_set_rates m 2 fast:4 0.1:5").is_err());
        assert!(one("meter_set_rates m 2 0.1 0.1:5").is_err());
    }

    #[test]
    fn packets_expects_counters() {
        assert_eq!(
            one("packet 1 0a0b 0c"),
            Ok(Command::Packet {
                port: 1,
                data: vec![10, 11, 12]
            })
        );
        assert!(one("packet 0 abg").is_err());
        assert!(one("packet x 00").is_err());
        assert_eq!(
            one("check_counter ingress.c(0x10) packets == 2"),
            Ok(Command::CheckCounter {
                counter: "ingress.c".into(),
                index: 16,
                expected: Some((CountKind::Packets, 2))
            })
        );
        assert_eq!(one("wait"), Ok(Command::Wait));
        assert!(one("no_such_command 1")
            .unwrap_err()
            .contains("unsupported"));
    }

    #[test]
    fn errors_name_file_and_line_and_comments_are_skipped() {
        let text = "# header\npacket 0 00 # trailing\n\nadd t\nexpect 0 0g\n";
        let errors = parse(Path::new("x.stf"), text).unwrap_err();
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(shown.len(), 2);
        assert!(shown[0].starts_with("x.stf:4: "), "{}", shown[0]);
        assert!(shown[1].starts_with("x.stf:5: "), "{}", shown[1]);
    }

    #[test]
    fn a_last_lone_packet_digit_is_a_byte_as_in_bmv2() {
        assert_eq!(
            one("packet 0 0a 5"),
            Ok(Command::Packet {
                port: 0,
                data: vec![0x0a, 0x05]
            })
        );
    }

    #[test]
    fn odd_bytes_give_errors_not_panics() {
        let samples = [
            "add t\u{3000}a(",
            "add t k:1\u{3000}act()",
            "add (",
            "add t k:v (",
            "expect 0 \u{e9}",
            "check_counter (",
            "check_counter c(1) packets ==",
            "setdefault t a(x)",
            "packet 99999999999 00",
            "add t 1 2 a()",
        ];
        for text in samples {
            let _ = parse(Path::new("x.stf"), text);
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let alphabet: Vec<char> = "add packet expect 0x1:/&( ),*$#\n\u{3000}\u{e9}k.field0"
            .chars()
            .collect();
        for _ in 0..2000 {
            let text: String = (0..40)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = parse(Path::new("x.stf"), &text);
        }
    }

    /// Every ebpf STF file of the reference corpus parses.
    #[test]
    fn corpus_ebpf_stf_files_parse() {
        let folder =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/p4c/p4_16_samples");
        let Ok(entries) = std::fs::read_dir(&folder) else {
            eprintln!("skipped: corpus folder {} is absent", folder.display());
            return;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                name.contains("_ebpf") && name.ends_with(".stf")
            })
            .collect();
        files.sort();
        assert!(!files.is_empty());
        for file in &files {
            let parsed = parse_file(file);
            assert!(
                parsed.as_ref().is_ok_and(|lines| !lines.is_empty()),
                "{}: {:?}",
                file.display(),
                parsed.err()
            );
        }
    }
}
