//! `p4bpf conformance [CORPUS_DIR]`: the front end over a whole corpus.
//!
//! [`suites`] says which programs to check and what to expect, [`runner`]
//! checks them in child processes, [`report`] writes the Markdown report.
//! Failures are data: the exit status is non-zero only when a child crashed.

mod report;
mod runner;
mod suites;

use crate::args::{self, Args, UsageError};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const DEFAULT_CORPUS: &str = "../shared/corpus/p4c";
const DEFAULT_OUT: &str = "conformance/frontend.md";
const DEFAULT_TIMEOUT_SECONDS: u64 = 10;

struct Request {
    corpus: PathBuf,
    out: PathBuf,
    jobs: usize,
    timeout: Duration,
}

fn parse(mut words: Args) -> Result<Request, UsageError> {
    let mut corpus = None;
    let mut out = PathBuf::from(DEFAULT_OUT);
    let mut jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut timeout = Duration::from_secs(DEFAULT_TIMEOUT_SECONDS);
    while let Some(word) = words.next_word() {
        if let Some(path) = words.option(&word, "--out")? {
            out = path.into();
        } else if let Some(n) = words.option(&word, "--jobs")? {
            jobs = usize::try_from(args::parse_count("--jobs", &n)?).unwrap_or(usize::MAX);
        } else if let Some(s) = words.option(&word, "--timeout")? {
            timeout = Duration::from_secs(args::parse_count("--timeout", &s)?);
        } else {
            args::take_input(&mut corpus, word, "corpus folder")?;
        }
    }
    let corpus = corpus.unwrap_or_else(|| PathBuf::from(DEFAULT_CORPUS));
    Ok(Request {
        corpus,
        out,
        jobs,
        timeout,
    })
}

pub fn run(words: Args) -> ExitCode {
    let request = match parse(words) {
        Ok(request) => request,
        Err(e) => return e.report(Some("conformance")),
    };
    if !request.corpus.is_dir() {
        println!(
            "skipping conformance: corpus folder `{}` not found",
            request.corpus.display()
        );
        return ExitCode::SUCCESS;
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("p4bpf: error: cannot find this program's own path to run checks: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (programs, missing) = suites::discover(&request.corpus);
    // `compile` writes files: each of its children gets a folder of its own here.
    let scratch = std::env::temp_dir().join(format!("p4bpf-conformance-{}", std::process::id()));
    let jobs: Vec<runner::Job> = programs
        .iter()
        .enumerate()
        .map(|(index, program)| job_for(program, &scratch.join(index.to_string())))
        .collect();
    let launcher = runner::Launcher {
        exe: &exe,
        workdir: &request.corpus,
        timeout: request.timeout,
    };
    let total = jobs.len();
    eprintln!("checking {total} programs with {} jobs", request.jobs);
    let on_terminal = std::io::stderr().is_terminal();
    let progress = |done: usize| {
        if on_terminal && (done.is_multiple_of(20) || done == total) {
            eprint!("\r{done}/{total}");
            let _ = std::io::stderr().flush();
        } else if done.is_multiple_of(500) {
            eprintln!("{done}/{total}");
        }
    };
    let runs = runner::run_all(&launcher, &jobs, request.jobs, &progress);
    if on_terminal {
        eprintln!();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let corpus_label = request.corpus.display().to_string();
    let context = report::Context {
        corpus: &corpus_label,
        missing: &missing,
        timeout: request.timeout,
    };
    let text = report::render(&context, &programs, &runs);
    if let Err(e) = write_report(&request.out, &text) {
        eprintln!("p4bpf: error: cannot write {}: {e}", request.out.display());
        return ExitCode::FAILURE;
    }
    print_summary(&text);
    println!("report written to {}", request.out.display());
    let crashed = runs
        .iter()
        .any(|r| matches!(r.outcome, runner::Outcome::Crashed(_)));
    if crashed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The child that judges `program`: `check` (diagnostics as lines) or
/// `compile` into `out_dir`, with the suite's defines.
fn job_for(program: &suites::Program, out_dir: &Path) -> runner::Job {
    let suite = suites::SUITES.get(program.suite);
    let (mut args, diagnostics): (Vec<OsString>, _) = match suite.map(|s| s.stage) {
        Some(suites::Stage::Compile) => (
            vec!["compile".into(), "-o".into(), out_dir.into()],
            runner::DiagnosticsFormat::Human,
        ),
        _ => (
            vec!["check".into(), "--diagnostics-format=lines".into()],
            runner::DiagnosticsFormat::Lines,
        ),
    };
    for (name, value) in suite.map_or(&[][..], |s| s.defines) {
        args.push(format!("-D{name}={value}").into());
    }
    args.push(program.path.clone().into());
    runner::Job { args, diagnostics }
}

fn write_report(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

/// Echoes the report's summary section to the terminal.
fn print_summary(report: &str) {
    let section = report
        .split("## ")
        .find(|s| s.starts_with("Summary"))
        .unwrap_or_default();
    print!("{}", section.trim_start_matches("Summary").trim_start());
}
