//! `p4bpf`: the command line. Picks the subcommand and hands the rest of the
//! words to its module; each subcommand parses its own options.

mod args;
mod bench;
mod check;
mod compile;
mod conformance;
mod control_output;
mod counter;
mod diagnostic_line;
mod digest;
mod direct;
mod fuzz;
mod fuzz_packets;
mod graph;
mod help;
mod idle;
mod mcast;
mod meter;
mod p4runtime;
mod pipeline;
mod port;
mod profile;
mod register;
mod run;
mod summary;
mod table;
mod table_load;
mod target;
mod test;
mod top;
mod trace;
mod value_set;

use args::{Args, UsageError};
use std::process::ExitCode;

fn main() -> ExitCode {
    // `std::env::args` would panic on a word that is not UTF-8.
    let words: Result<Vec<String>, _> = std::env::args_os()
        .skip(1)
        .map(|w| w.into_string())
        .collect();
    let mut words = match words {
        Ok(words) => words,
        Err(word) => {
            let message = format!("argument `{}` is not valid UTF-8", word.to_string_lossy());
            return UsageError::new(message).report(None);
        }
    };
    if words.is_empty() {
        eprint!("{}", help::text(None).unwrap_or_default());
        return ExitCode::from(2);
    }
    let command = words.remove(0);
    if args::wants_help(&words) {
        if let Some(text) = help::text(Some(&command)) {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
    }
    let rest = Args::new(words);
    match command.as_str() {
        "bench" => bench::run(rest),
        "check" => check::run(rest),
        "compile" => compile::run(rest),
        "conformance" => conformance::run(rest),
        "counter" => counter::run(rest),
        "digest" => digest::run(rest),
        "meter" => meter::run(rest),
        "fuzz" => fuzz::run(rest),
        "graph" => graph::run(rest),
        "help" | "-h" | "--help" => help::run(rest),
        "idle" => idle::run(rest),
        "mcast" => mcast::run(rest),
        "profile" => profile::run(rest),
        "register" => register::run(rest),
        "clone" => mcast::run_clone(rest),
        "p4runtime" => p4runtime::run(rest),
        "pipeline" => pipeline::run(rest),
        "port" => port::run(rest),
        "run" => run::run(rest),
        "table" => table::run(rest),
        "test" => test::run(rest),
        "top" => top::run(rest),
        "trace" => trace::run(rest),
        "value-set" => value_set::run(rest),
        "-V" | "--version" => {
            println!("p4bpf {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        other => UsageError::new(format!("unknown command `{other}`")).report(None),
    }
}
