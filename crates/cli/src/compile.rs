//! `p4bpf compile FILE.p4`: P4 to readable C, an eBPF object and P4Info.
//!
//! Writes `NAME.c`, `NAME.o` and `NAME.p4info.txtpb` into the output folder
//! (`-o DIR`, default: the current folder), NAME being the program's file
//! stem. Exit status 0 on success, 1 for a program the target cannot run or
//! a tool failure (explained on stderr), 2 for a bad command line.

use crate::args::{self, Args, UsageError};
use crate::target;
use p4bpf_compiler::{CompileError, CompileOptions};
use std::path::PathBuf;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf compile FILE.p4 [-o DIR] [--hook xdp|tc] [--extern-file FILE.c] [-I DIR]... [-D NAME[=VALUE]]...
                     [--table-stats] [--trace] [--table-caching]

Compiles an ebpf_model or xdp_model program: writes DIR/NAME.c (readable C),
DIR/NAME.o (the eBPF object, with its pipeline description in section
.p4bpf.pipeline) and DIR/NAME.p4info.txtpb.

options:
  -o DIR                 output folder (default: .)
  --hook xdp|tc          attach point the object is built for (default: xdp)
  --extern-file FILE.c   C implementations of the program's extern functions
  -I DIR, -D NAME[=VAL]  as for `p4bpf check`
  --table-stats          count each table's hits and misses (one per-CPU map
                         update per table per packet) so that `p4bpf top`
                         shows them per second
  --trace                the traced build for `p4bpf trace`: a record of what
                         each packet did to a ring buffer; counts as
                         --table-stats does
  --table-caching        as PSA-eBPF's option: ternary, lpm and action
                         selector tables look the packet's exact key up in
                         an LRU cache of their results before searching
                         (`p4bpf table cache-put` writes one by hand); a
                         table's @p4bpf_cache caches it without the option,
                         @p4bpf_no_cache never
";

#[derive(Debug)]
struct Request {
    file: PathBuf,
    options: CompileOptions,
}

fn parse(mut words: Args) -> Result<Option<Request>, UsageError> {
    let mut file = None;
    let mut options = CompileOptions {
        out_dir: PathBuf::from("."),
        ..target::default_compile_options()
    };
    while let Some(word) = words.next_word() {
        if word == "-h" || word == "--help" {
            return Ok(None);
        } else if target::compile_option(&mut words, &word, &mut options)? {
            continue;
        } else if let Some(dir) = words.option(&word, "-o")? {
            options.out_dir = dir.into();
        } else {
            args::take_input(&mut file, word, "input file")?;
        }
    }
    match file {
        Some(file) => Ok(Some(Request { file, options })),
        None => Err(UsageError::new("missing the P4 file to compile")),
    }
}

pub fn run(words: Args) -> ExitCode {
    let request = match parse(words) {
        Ok(Some(request)) => request,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => return e.report(Some("compile")),
    };
    match p4bpf_compiler::compile_file(&request.file, &request.options) {
        Ok(done) => {
            done.warnings.iter().for_each(|w| eprint!("{w}"));
            for path in [&done.c_file, &done.object]
                .into_iter()
                .chain(done.p4info.as_ref())
            {
                println!("wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(CompileError::Program {
            sources,
            diagnostics,
        }) => {
            for d in &diagnostics.list {
                eprint!("{}", d.render(&sources));
            }
            ExitCode::FAILURE
        }
        Err(CompileError::Tool(message)) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The whole of a failed compile as text: the rendered diagnostics of a
/// rejected program, or the message of a tool that failed.
pub fn error_text(error: CompileError) -> String {
    match error {
        CompileError::Program {
            sources,
            diagnostics,
        } => diagnostics
            .list
            .iter()
            .map(|d| d.render(&sources))
            .collect::<String>()
            .trim_end()
            .to_string(),
        CompileError::Tool(message) => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4bpf_compiler::{Hook, Instrument};

    fn parse_words(words: &[&str]) -> Result<Option<Request>, UsageError> {
        parse(Args::new(words.iter().map(|w| w.to_string()).collect()))
    }

    #[test]
    fn reads_hook_output_and_extern_file() {
        let r = parse_words(&["x.p4", "--hook", "tc", "-o", "out", "--extern-file=e.c"])
            .ok()
            .flatten();
        let r = r.map(|r| {
            (
                r.file,
                r.options.hook,
                r.options.out_dir,
                r.options.extern_file,
            )
        });
        assert_eq!(
            r,
            Some((
                PathBuf::from("x.p4"),
                Hook::Tc,
                PathBuf::from("out"),
                Some(PathBuf::from("e.c"))
            ))
        );
    }

    #[test]
    fn table_stats_and_trace_choose_the_instrumentation() {
        let instrument = |words: &[&str]| {
            parse_words(words)
                .ok()
                .flatten()
                .map(|r| r.options.instrument())
        };
        assert_eq!(instrument(&["a.p4"]), Some(Instrument::Off));
        assert_eq!(
            instrument(&["a.p4", "--table-stats"]),
            Some(Instrument::TableStats)
        );
        assert_eq!(instrument(&["a.p4", "--trace"]), Some(Instrument::Trace));
        assert_eq!(
            instrument(&["a.p4", "--table-stats", "--trace"]),
            Some(Instrument::Trace)
        );
    }

    #[test]
    fn rejects_bad_command_lines() {
        for words in [
            &[][..],
            &["a.p4", "--hook", "lwt"],
            &["a.p4", "b.p4"],
            &["a.p4", "-o"],
        ] {
            assert!(parse_words(words).is_err(), "{words:?}");
        }
    }
}
