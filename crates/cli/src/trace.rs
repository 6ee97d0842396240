//! `p4bpf trace PIPELINE [--count N] [--seconds S] [--json]`: what a loaded
//! pipeline compiled with `--trace` does with each packet, as it happens;
//! and the per-packet traces `test --trace` and `run --trace` print.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::trace::{Decoder, PacketTrace, TraceSource, Traced};
use p4bpf_runtime::Result;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

pub const USAGE: &str = "\
usage: p4bpf trace PIPELINE [--count N] [--seconds S] [--json]

Prints what the loaded pipeline PIPELINE does with each packet it sees: the
parser states it enters, each table it applies with the key, hit or miss,
the action and its arguments, and the verdict with the output port and the
headers valid at the end. The pipeline must be compiled and loaded with
--trace (`p4bpf pipeline load ... --trace`); the normal build has no trace
code.

options:
  --count N     stop after N packets (default: run until interrupted)
  --seconds S   stop after S seconds
  --json        one JSON object per packet, one per line
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &["--count", "--seconds"]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("trace")),
    };
    let [pipeline] = words.positional.as_slice() else {
        return UsageError::new("expected `trace PIPELINE`").report(Some("trace"));
    };
    let number = |flag: &str| -> std::result::Result<Option<u64>, UsageError> {
        words
            .option(flag)
            .map(|text| {
                text.parse()
                    .map_err(|_| UsageError::new(format!("bad {flag} `{text}`")))
            })
            .transpose()
    };
    let (count, seconds) = match (number("--count"), number("--seconds")) {
        (Ok(count), Ok(seconds)) => (count, seconds),
        (Err(e), _) | (_, Err(e)) => return e.report(Some("trace")),
    };
    let deadline = seconds.map(|s| Instant::now() + Duration::from_secs(s));
    match follow(pipeline, count, deadline, words.json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(error),
    }
}

/// Prints packets as their verdicts arrive until `count` or `deadline`.
fn follow(name: &str, count: Option<u64>, deadline: Option<Instant>, json: bool) -> Result<()> {
    let deployment = Deployment::open(name)?;
    let mut source = TraceSource::open_deployed(&deployment)?;
    let mut decoder = Decoder::default();
    let mut printed = 0u64;
    let mut stdout = std::io::stdout().lock();
    while count.is_none_or(|n| printed < n) && deadline.is_none_or(|d| Instant::now() < d) {
        let records = source.take(200)?;
        for packet in decoder.feed(&deployment.description, &records)? {
            if count.is_some_and(|n| printed >= n) {
                break;
            }
            printed += 1;
            let text = if json {
                packet.to_json()
            } else {
                format!("packet {printed}\n{packet}")
            };
            // A closed stdout (`| head`) ends the trace quietly.
            if writeln!(stdout, "{text}")
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The report `lines` of an STF run with each packet's trace after its
/// line (`packet N (...`); `packets[i]` is what packet i + 1 recorded.
pub fn with_traces(lines: Vec<String>, packets: &[Result<Vec<PacketTrace>>]) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len() * 2);
    for line in lines {
        let number = line
            .strip_prefix("packet ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok());
        out.push(line);
        if let Some(traced) = number.and_then(|n| packets.get(n.wrapping_sub(1))) {
            out.push(trace_text(traced));
        }
    }
    out
}

/// The trace of the last packet `traced` ran.
pub fn last_text(traced: &Traced) -> String {
    match traced.packets.borrow().last() {
        Some(packet) => trace_text(packet),
        None => "  trace: no packet ran".into(),
    }
}

fn trace_text(traced: &Result<Vec<PacketTrace>>) -> String {
    match traced {
        Ok(packets) if packets.is_empty() => {
            "  trace: no records (the ring buffer was full)".into()
        }
        Ok(packets) => packets
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
        Err(error) => format!("  trace: {error}"),
    }
}
