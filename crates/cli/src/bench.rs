//! `p4bpf bench [SUITE]`: times the generated programs against hand-written
//! C twins in the kernel and writes `SUITE/RESULTS.md` and `SUITE/ratios.svg`.
//!
//! SUITE (default `bench`) holds `p4/NAME.p4` and its twin `c/NAME.c`, plus
//! the floors `c/drop.c` and `c/tx.c`. Every program is loaded once, its
//! tables filled, then timed in interleaved rounds (one `BPF_PROG_TEST_RUN`
//! of `--repeat` runs per program per round) so drift hits all alike; the
//! figure is the median over rounds. Programs that grow the packet are timed
//! with live frames on a veth pair the command creates and removes.
//! Exit status 0 when every program ran, 1 otherwise, 2 bad command line.

mod build;
mod classbench;
mod designs;
mod fill;
mod matrix;
mod measure;
mod psa_suite;
mod report;
mod suite;
mod svg;
mod table_cache;
mod twin;
mod veth;

use crate::args::{self, Args, UsageError};
use std::path::PathBuf;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf bench [SUITE] [--repeat N] [--rounds N] [--only NAME] [--psa] [--no-write]

Compiles SUITE/p4/NAME.p4 and SUITE/c/NAME.c (the hand-written twin), loads
both, fills their tables and times them with BPF_PROG_TEST_RUN on a 64-byte
UDP packet: the median over --rounds rounds of the kernel's average ns per
run over --repeat runs. Reports ns/packet, the ratio to the twin, xlated and
verified instruction counts and stack depth; writes SUITE/RESULTS.md and
SUITE/ratios.svg unless --no-write. Needs root (or CAP_BPF + CAP_NET_ADMIN),
clang and libbpf-dev; live-frame timing also needs `ip`.

options:
  --repeat N   runs per BPF_PROG_TEST_RUN call (default 200000)
  --rounds N   interleaved rounds; the median is reported (default 9)
  --only NAME  only the study program NAME (and the floors)
  --psa        only the PSA programs (PSA-eBPF's l2l3-acl from
               ../shared/corpus/p4c, at TC), written to SUITE/psa/RESULTS.md
  --no-write   print the table, write nothing
  --no-matrix  leave out the table matrix (exact/LPM/ternary, 1-3 tables,
               2..130K entries, 1.. masks, 4..64-byte keys), which takes
               a few minutes
  --classbench DIR
               instead, the ClassBench ACL (SUITE/classbench) on every
               NAME.rules + NAME.trace of DIR: verdicts against a linear
               scan, ns/packet beside an exact table, updates/s; writes
               SUITE/classbench/RESULTS.md
  --shapes     with --classbench, also generated sets shaped like
               ClassBench's acl, fw and ipc seeds (1K and 10K rules)
  --table-cache
               instead, one ternary table with 1 to 64 masks with and
               without `--table-caching` on a repeated flow; writes
               SUITE/table_cache/RESULTS.md
";

#[derive(Debug, Clone)]
pub struct Request {
    pub suite: PathBuf,
    pub repeat: u32,
    pub rounds: u32,
    pub only: Option<String>,
    /// Only the PSA cases, reported in `SUITE/psa/RESULTS.md`.
    pub psa: bool,
    pub write: bool,
    pub matrix: bool,
    /// Rule sets for the ClassBench run, which replaces the suite's.
    pub classbench: Option<PathBuf>,
    /// Generated ClassBench-shaped sets too (`--shapes`).
    pub shapes: bool,
    /// Instead, the table cache's figure (`--table-cache`).
    pub table_cache: bool,
}

fn parse(mut words: Args) -> Result<Option<Request>, UsageError> {
    let mut request = Request {
        suite: PathBuf::from("bench"),
        repeat: 200_000,
        rounds: 9,
        only: None,
        psa: false,
        write: true,
        matrix: true,
        classbench: None,
        shapes: false,
        table_cache: false,
    };
    while let Some(word) = words.next_word() {
        if word == "-h" || word == "--help" {
            return Ok(None);
        } else if let Some(n) = words.option(&word, "--repeat")? {
            request.repeat = count("--repeat", &n)?;
        } else if let Some(n) = words.option(&word, "--rounds")? {
            request.rounds = count("--rounds", &n)?;
        } else if let Some(name) = words.option(&word, "--only")? {
            request.only = Some(name);
        } else if let Some(dir) = words.option(&word, "--classbench")? {
            request.classbench = Some(PathBuf::from(dir));
        } else if word == "--shapes" {
            request.shapes = true;
        } else if word == "--table-cache" {
            request.table_cache = true;
        } else if word == "--psa" {
            (request.psa, request.matrix) = (true, false);
        } else if word == "--no-matrix" {
            request.matrix = false;
        } else if word == "--no-write" {
            request.write = false;
        } else if word.starts_with('-') {
            return Err(args::unknown_option(&word));
        } else {
            request.suite = PathBuf::from(word);
        }
    }
    Ok(Some(request))
}

/// A positive count given to `flag` that fits the kernel's 32-bit fields.
fn count(flag: &str, text: &str) -> Result<u32, UsageError> {
    let n = args::parse_count(flag, text)?;
    u32::try_from(n)
        .map_err(|_| UsageError::new(format!("`{flag}` needs a count from 1 to {}", u32::MAX)))
}

pub fn run(words: Args) -> ExitCode {
    let request = match parse(words) {
        Ok(Some(request)) => request,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(error) => return error.report(Some("bench")),
    };
    if let Some(dir) = &request.classbench {
        return run_classbench(&request, dir);
    }
    if request.table_cache {
        return run_table_cache(&request);
    }
    match measure::run(&request) {
        Ok(results) => {
            let text = if request.psa {
                report::psa_markdown(&request, &results)
            } else {
                report::markdown(&request, &results)
            };
            print!("{text}");
            if request.write {
                let files = if request.psa {
                    vec![(request.suite.join("psa/RESULTS.md"), text)]
                } else {
                    vec![
                        (request.suite.join("RESULTS.md"), text),
                        (request.suite.join("ratios.svg"), svg::ratios(&results)),
                    ]
                };
                for (path, body) in files {
                    if let Some(folder) = path.parent() {
                        // A missing folder shows as the write's error below.
                        let _ = std::fs::create_dir_all(folder);
                    }
                    if let Err(e) = std::fs::write(&path, body) {
                        eprintln!("p4bpf: error: cannot write {}: {e}", path.display());
                        return ExitCode::FAILURE;
                    }
                    eprintln!("wrote {}", path.display());
                }
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("p4bpf: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_table_cache(request: &Request) -> ExitCode {
    let text = match measure::table_cache(request) {
        Ok(text) => text,
        Err(message) => {
            eprintln!("p4bpf: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    print!("{text}");
    if request.write {
        let path = request.suite.join("table_cache/RESULTS.md");
        if let Some(folder) = path.parent() {
            // A missing folder shows as the write's error below.
            let _ = std::fs::create_dir_all(folder);
        }
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("p4bpf: error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

fn run_classbench(request: &Request, dir: &std::path::Path) -> ExitCode {
    let results = match classbench::run(&request.suite, dir, request.shapes) {
        Ok(results) => results,
        Err(message) => {
            eprintln!("p4bpf: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let text = classbench::markdown(&results);
    print!("{text}");
    if request.write {
        let path = request.suite.join("classbench/RESULTS.md");
        let head = format!("{}{}\n\n", classbench::RESULTS_HEAD, classbench::machine());
        if let Err(e) = std::fs::write(&path, format!("{head}{text}")) {
            eprintln!("p4bpf: error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    let correct = results
        .iter()
        .all(|r| r.wrong == 0 && r.wrong_after_updates == 0);
    if correct {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Option<Request>, UsageError> {
        parse(Args::new(words.iter().map(|w| w.to_string()).collect()))
    }

    #[test]
    fn reads_suite_and_counts() {
        let r = parse_words(&["x", "--repeat", "10", "--rounds=3", "--only", "mac_swap"])
            .ok()
            .flatten();
        let r = r.map(|r| (r.suite, r.repeat, r.rounds, r.only));
        assert_eq!(
            r,
            Some((PathBuf::from("x"), 10, 3, Some("mac_swap".into())))
        );
    }

    #[test]
    fn rejects_zero_and_unknown_options() {
        for words in [&["--repeat", "0"][..], &["--rounds", "x"], &["--fast"]] {
            assert!(parse_words(words).is_err(), "{words:?}");
        }
    }
}
