//! Runs `p4bpf check` on many programs at once, each in a child process of
//! this same binary, so that a crash, a stack overflow or a hang of the front
//! end is recorded against one file instead of ending the run.
//!
//! A fixed number of worker threads take programs in order from a shared
//! counter; each starts one child, reads its stderr on a helper thread (so a
//! child with many diagnostics never blocks on a full pipe), and kills it
//! when it outlives the time limit.

use crate::diagnostic_line::{self, DiagnosticLine};
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One child to run: `p4bpf ARGS...`, with paths relative to the working
/// folder of the children.
pub struct Job {
    pub args: Vec<OsString>,
    pub diagnostics: DiagnosticsFormat,
}

/// How the child writes its diagnostics on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagnosticsFormat {
    /// `--diagnostics-format=lines`.
    Lines,
    /// Rendered for people, as `compile` writes them.
    Human,
}

/// How a child ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Accepted,
    /// Exit status 1; the first error diagnostic, if it printed one.
    Rejected(Option<DiagnosticLine>),
    /// Anything else: a panic, a signal, a time-out; with what was seen.
    Crashed(String),
}

#[derive(Clone, Debug)]
pub struct Run {
    pub outcome: Outcome,
    pub elapsed: Duration,
}

/// How the children are started.
pub struct Launcher<'a> {
    pub exe: &'a Path,
    /// The folder the children run in; job paths are relative to it.
    pub workdir: &'a Path,
    pub timeout: Duration,
}

/// Runs every job with `parallel` children at a time; the results are in
/// job order. `on_done` is called after each job with the number finished.
pub fn run_all(
    launcher: &Launcher,
    jobs: &[Job],
    parallel: usize,
    on_done: &(dyn Fn(usize) + Sync),
) -> Vec<Run> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Run>>> = Mutex::new(vec![None; jobs.len()]);
    let worker = || loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = jobs.get(index) else { break };
        let run = run_one(launcher, job);
        if let Ok(mut results) = results.lock() {
            if let Some(slot) = results.get_mut(index) {
                *slot = Some(run);
            }
        }
        on_done(finished.fetch_add(1, Ordering::Relaxed) + 1);
    };
    std::thread::scope(|scope| {
        for _ in 0..parallel.clamp(1, jobs.len().max(1)) {
            // Out of threads: the workers already started share the rest.
            if std::thread::Builder::new()
                .spawn_scoped(scope, worker)
                .is_err()
            {
                break;
            }
        }
    });
    let results = results.into_inner().unwrap_or_default();
    results
        .into_iter()
        .map(|run| {
            run.unwrap_or(Run {
                outcome: Outcome::Crashed("never ran".into()),
                elapsed: Duration::ZERO,
            })
        })
        .collect()
}

fn run_one(launcher: &Launcher, job: &Job) -> Run {
    let mut command = Command::new(launcher.exe);
    command
        .current_dir(launcher.workdir)
        .args(&job.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Run {
                outcome: Outcome::Crashed(format!("cannot start: {e}")),
                elapsed: Duration::ZERO,
            }
        }
    };
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let status = wait_with_timeout(&mut child, launcher.timeout);
    let elapsed = start.elapsed();
    let stderr = reader.join().unwrap_or_default();
    let outcome = match status {
        Ok(status) => classify(status, &stderr, job.diagnostics),
        Err(why) => Outcome::Crashed(why),
    };
    Run { outcome, elapsed }
}

/// Waits for `child`, killing it after `timeout`.
fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Result<ExitStatus, String> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", timeout.as_secs_f64()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                let _ = child.kill();
                return Err(format!("cannot wait for the child: {e}"));
            }
        }
    }
}

/// What an exit status and the child's stderr mean.
fn classify(status: ExitStatus, stderr: &str, format: DiagnosticsFormat) -> Outcome {
    let read = match format {
        DiagnosticsFormat::Lines => diagnostic_line::parse,
        DiagnosticsFormat::Human => diagnostic_line::parse_rendered,
    };
    match status.code() {
        Some(0) => Outcome::Accepted,
        Some(1) => Outcome::Rejected(stderr.lines().filter_map(read).find(|d| d.is_error)),
        Some(code) => Outcome::Crashed(format!("exit status {code}{}", crash_detail(stderr))),
        None => {
            let signal = status
                .signal()
                .map_or("an unknown signal".to_string(), |s| format!("signal {s}"));
            Outcome::Crashed(format!("killed by {signal}{}", crash_detail(stderr)))
        }
    }
}

/// `: <what the child said>`: the panic message or the stack overflow
/// notice, else its last line of stderr; empty when it said nothing.
fn crash_detail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| diagnostic_line::parse(l).is_none())
        .collect();
    let panic = lines.iter().position(|l| l.contains("panicked at"));
    let said = match panic {
        Some(i) => lines.get(i..(i + 2).min(lines.len())).map(|l| l.join(" ")),
        None => lines
            .iter()
            .find(|l| l.contains("overflowed its stack"))
            .or(lines.last())
            .map(|l| l.to_string()),
    };
    match said {
        Some(text) if !text.trim().is_empty() => format!(": {}", text.trim()),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_lines(status: ExitStatus, stderr: &str) -> Outcome {
        classify(status, stderr, DiagnosticsFormat::Lines)
    }

    fn status(raw: i32) -> ExitStatus {
        ExitStatus::from_raw(raw)
    }

    #[test]
    fn exit_codes_mean_accepted_rejected_or_crashed() {
        assert_eq!(classify_lines(status(0), ""), Outcome::Accepted);
        let rejected = classify_lines(
            status(1 << 8),
            "warning\tprogram\ta.p4:1:1\tw\nerror\tprogram\ta.p4:2:1\tbad\n",
        );
        assert_eq!(
            rejected,
            Outcome::Rejected(diagnostic_line::parse("error\tprogram\ta.p4:2:1\tbad"))
        );
        assert_eq!(
            classify_lines(status(1 << 8), "garbage"),
            Outcome::Rejected(None)
        );
        assert_eq!(
            classify_lines(
                status(101 << 8),
                "thread 'main' panicked at src/x.rs:3:4:\nindex out of bounds\nnote: x"
            ),
            Outcome::Crashed(
                "exit status 101: thread 'main' panicked at src/x.rs:3:4: index out of bounds"
                    .into()
            )
        );
        assert_eq!(
            classify_lines(
                status(6),
                "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n"
            ),
            Outcome::Crashed("killed by signal 6: thread 'main' has overflowed its stack".into())
        );
    }

    #[test]
    fn rendered_diagnostics_are_read_for_commands_without_lines() {
        let stderr = "x.p4:10:8: error: header `h` is 3 bits long\n   |\n10 | header h {\n";
        let outcome = classify(status(1 << 8), stderr, DiagnosticsFormat::Human);
        let first = diagnostic_line::parse_rendered("x.p4:10:8: error: header `h` is 3 bits long");
        assert_eq!(outcome, Outcome::Rejected(first));
    }

    #[test]
    fn hung_children_are_killed_at_the_time_limit() {
        let mut child = Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("`sleep` runs");
        let started = Instant::now();
        assert!(wait_with_timeout(&mut child, Duration::from_millis(100)).is_err());
        assert!(started.elapsed() < Duration::from_secs(4));
    }
}
