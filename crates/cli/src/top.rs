//! `p4bpf top PIPELINE [--interval S] [--once] [--count N]`: live rates of
//! a loaded pipeline, refreshed in the terminal (`p4bpf_runtime::top`).

use crate::args::{self, Args, UsageError};
use crate::control_output::fail;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::top::{rates, sample};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

pub const USAGE: &str = "\
usage: p4bpf top PIPELINE [--interval S] [--once] [--count N]

Live rates of the loaded pipeline PIPELINE, refreshed every S seconds
(default 1): per port the interface's packets and bytes per second in and
out, per counter packets and bytes per second over all its cells, per table
its entries and, when the pipeline was compiled with --table-stats (or
--trace: `p4bpf compile --table-stats`, `p4bpf pipeline load PROGRAM.p4
--table-stats`), hits and misses per second.

options:
  --interval S   seconds between samples (decimals allowed)
  --once         print the rates of one interval as plain text and exit
  --count N      print N intervals as plain text and exit
";

pub fn run(words: Args) -> ExitCode {
    match parse(words) {
        Ok(request) => match watch(&request.pipeline, request.interval, request.count) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => fail(error),
        },
        Err(error) => error.report(Some("top")),
    }
}

struct Request {
    pipeline: String,
    interval: Duration,
    /// Intervals to print; `None`: until interrupted.
    count: Option<u64>,
}

fn parse(mut words: Args) -> Result<Request, UsageError> {
    let (mut pipeline, mut interval, mut count, mut once) = (None, 1.0, None, false);
    while let Some(word) = words.next_word() {
        if word == "--once" {
            once = true;
        } else if let Some(text) = words.option(&word, "--interval")? {
            interval = text
                .parse::<f64>()
                .ok()
                .filter(|s| *s > 0.0 && s.is_finite())
                .ok_or_else(|| UsageError::new("--interval takes a positive number of seconds"))?;
        } else if let Some(text) = words.option(&word, "--count")? {
            count = Some(
                text.parse::<u64>()
                    .map_err(|_| UsageError::new("--count takes a whole number"))?,
            );
        } else if word.starts_with('-') {
            return Err(args::unknown_option(&word));
        } else if pipeline.replace(word).is_some() {
            return Err(UsageError::new("expected one pipeline name"));
        }
    }
    Ok(Request {
        pipeline: pipeline.ok_or_else(|| UsageError::new("expected `top PIPELINE`"))?,
        interval: Duration::from_secs_f64(interval),
        count: count.or(once.then_some(1)),
    })
}

/// Samples every `interval`, printing the rates; a terminal without a
/// count is redrawn in place.
fn watch(name: &str, interval: Duration, count: Option<u64>) -> p4bpf_runtime::Result<()> {
    let deployment = Deployment::open(name)?;
    let redraw = count.is_none() && std::io::stdout().is_terminal();
    let mut before = sample(&deployment)?;
    let mut shown = 0u64;
    while count.is_none_or(|n| shown < n) {
        std::thread::sleep(interval);
        let after = sample(&deployment)?;
        let mut text = rates(&before, &after).join("\n");
        if redraw {
            // Clear the screen and go home, as top does.
            text = format!("\x1b[2J\x1b[H{name}\n{text}");
        }
        let mut stdout = std::io::stdout().lock();
        if writeln!(stdout, "{text}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return Ok(());
        }
        before = after;
        shown += 1;
    }
    Ok(())
}
