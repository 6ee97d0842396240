//! `p4bpf compile FILE.p4`: P4 to readable C, an eBPF object and P4Info.
//!
//! Writes `NAME.c`, `NAME.o` and `NAME.p4info.txtpb` into the output folder
//! (`-o DIR`, default: the current folder), NAME being the program's file
//! stem. Exit status 0 on success, 1 for a program the target cannot run or
//! a tool failure (explained on stderr), 2 for a bad command line.

use crate::args::{self, Args, UsageError};
use p4bpf_compiler::{CompileError, CompileOptions, Hook};
use std::path::PathBuf;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf compile FILE.p4 [-o DIR] [--hook xdp|tc] [--extern-file FILE.c] [-I DIR]... [-D NAME[=VALUE]]...

Compiles an ebpf_model or xdp_model program: writes DIR/NAME.c (readable C),
DIR/NAME.o (the eBPF object, with its pipeline description in section
.p4bpf.pipeline) and DIR/NAME.p4info.txtpb.

options:
  -o DIR                 output folder (default: .)
  --hook xdp|tc          attach point the object is built for (default: xdp)
  --extern-file FILE.c   C implementations of the program's extern functions
  -I DIR, -D NAME[=VAL]  as for `p4bpf check`
";

#[derive(Debug)]
struct Request {
    file: PathBuf,
    options: CompileOptions,
}

fn parse(mut words: Args) -> Result<Option<Request>, UsageError> {
    let mut file = None;
    let mut options = CompileOptions {
        front: Default::default(),
        hook: Hook::Xdp,
        out_dir: PathBuf::from("."),
        extern_file: None,
    };
    while let Some(word) = words.next_word() {
        if word == "-h" || word == "--help" {
            return Ok(None);
        } else if let Some(dir) = words.option(&word, "-I")? {
            options.front.include_dirs.push(dir.into());
        } else if let Some(define) = words.option(&word, "-D")? {
            options.front.defines.push(args::parse_define(&define)?);
        } else if let Some(dir) = words.option(&word, "-o")? {
            options.out_dir = dir.into();
        } else if let Some(f) = words.option(&word, "--extern-file")? {
            options.extern_file = Some(f.into());
        } else if let Some(hook) = words.option(&word, "--hook")? {
            options.hook = match hook.as_str() {
                "xdp" => Hook::Xdp,
                "tc" => Hook::Tc,
                _ => {
                    return Err(UsageError::new(format!(
                        "unknown hook `{hook}` (expected `xdp` or `tc`)"
                    )))
                }
            };
        } else if word.starts_with('-') {
            return Err(args::unknown_option(&word));
        } else if file.is_some() {
            return Err(UsageError::new(format!(
                "more than one input file (`{word}`)"
            )));
        } else {
            file = Some(PathBuf::from(word));
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

#[cfg(test)]
mod tests {
    use super::*;

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
