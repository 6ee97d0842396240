//! `p4bpf digest PIPELINE [NAME] [--count N] [--json]`: the digests a
//! loaded pipeline sends, as they come; Ctrl-C ends it with a count of
//! what was shown and what the ring lost.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::digest::{self, DigestReader};
use p4bpf_runtime::Result;
use std::io::Write;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf digest PIPELINE [NAME] [--count N] [--json]

Prints each digest the loaded pipeline PIPELINE sends to the control plane
(v1model's `digest`, PSA's and PNA's `Digest.pack`) as it comes:

  digest mac_learn_digest_t: srcAddr=00:aa:bb:cc:dd:ee ingress_port=1

Values are written as `p4bpf table add` reads them. NAME keeps one digest
(its P4Runtime name, its type's name or the last part of a dotted name).
Ctrl-C stops and prints, on stderr, how many digests were shown and how many
the ring buffer lost because nobody read them in time.

options:
  --count N     stop after N digests (default: run until interrupted)
  --json        one JSON object per digest, one per line:
                {\"digest\":\"NAME\",\"fields\":{\"FIELD\":\"VALUE\",...}}
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &["--count"]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("digest")),
    };
    let (pipeline, name) = match words.positional.as_slice() {
        [pipeline] => (pipeline, None),
        [pipeline, name] => (pipeline, Some(name.as_str())),
        _ => return UsageError::new("expected `digest PIPELINE [NAME]`").report(Some("digest")),
    };
    let count = match words.option("--count").map(str::parse::<u64>).transpose() {
        Ok(count) => count,
        Err(_) => return UsageError::new("bad --count").report(Some("digest")),
    };
    match follow(pipeline, name, count, words.json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(error),
    }
}

fn follow(pipeline: &str, name: Option<&str>, count: Option<u64>, json: bool) -> Result<()> {
    let deployment = Deployment::open(pipeline)?;
    let mut reader = DigestReader::open_deployed(&deployment)?;
    let only = match name {
        Some(name) => Some(
            reader
                .layout()
                .find(name)
                .map(|d| d.name.clone())
                .ok_or_else(|| unknown(name, &reader))?,
        ),
        None => None,
    };
    let stop = digest::interrupt_flag();
    let mut shown = 0u64;
    let mut stdout = std::io::stdout().lock();
    reader.follow(stop, |message| {
        if only.as_ref().is_some_and(|o| *o != message.digest) {
            return Ok(true);
        }
        shown += 1;
        let text = if json {
            message.to_json()
        } else {
            message.to_string()
        };
        // A closed stdout (`| head`) ends the command quietly.
        let written = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
        Ok(written.is_ok() && count.is_none_or(|n| shown < n))
    })?;
    let lost = digest::lost(&deployment, reader.layout())?;
    eprintln!("{shown} digest(s) shown, {lost} lost by the ring since the pipeline was loaded");
    Ok(())
}

fn unknown(name: &str, reader: &DigestReader) -> p4bpf_runtime::RuntimeError {
    let known: Vec<&str> = reader
        .layout()
        .digests
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    p4bpf_runtime::RuntimeError::Value(format!(
        "no digest `{name}`; the pipeline sends {}",
        known.join(", ")
    ))
}
