//! `p4bpf check FILE.p4`: runs the front end on one program.
//!
//! Exit status 0 when the program is valid (warnings are printed but not
//! fatal), 1 when it has errors, 2 for a command line that cannot be
//! understood. Diagnostics go to stderr, rendered for people or, with
//! `--diagnostics-format=lines`, one per line for tools ([`diagnostic_line`]);
//! the summary of a valid program goes to stdout.

use crate::args::{self, Args, UsageError};
use crate::{diagnostic_line, summary};
use p4bpf_front::Options;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `file:line:col: error: ...`, an excerpt and a caret.
    Human,
    /// One tab-separated line per diagnostic.
    Lines,
}

#[derive(Debug)]
struct Request {
    file: PathBuf,
    options: Options,
    format: Format,
}

fn parse(mut words: Args) -> Result<Request, UsageError> {
    let mut file = None;
    let mut options = Options::default();
    let mut format = Format::Human;
    while let Some(word) = words.next_word() {
        if args::front_option(&mut words, &word, &mut options)? {
            continue;
        } else if let Some(name) = words.option(&word, "--diagnostics-format")? {
            format = match name.as_str() {
                "human" => Format::Human,
                "lines" => Format::Lines,
                _ => {
                    return Err(UsageError::new(format!(
                        "unknown diagnostics format `{name}` (expected `human` or `lines`)"
                    )))
                }
            };
        } else {
            args::take_input(&mut file, word, "input file")?;
        }
    }
    match file {
        Some(file) => Ok(Request {
            file,
            options,
            format,
        }),
        None => Err(UsageError::new("missing the P4 file to check")),
    }
}

pub fn run(words: Args) -> ExitCode {
    let request = match parse(words) {
        Ok(request) => request,
        Err(e) => return e.report(Some("check")),
    };
    let fe = p4bpf_front::check_file(&request.file, &request.options);
    for d in &fe.diagnostics.list {
        match request.format {
            Format::Human => eprint!("{}", d.render(&fe.sources)),
            Format::Lines => eprintln!("{}", diagnostic_line::write(d, &fe.sources)),
        }
    }
    if fe.has_errors() {
        return ExitCode::FAILURE;
    }
    println!(
        "{}",
        summary::describe(&request.file.display().to_string(), &fe)
    );
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Request, UsageError> {
        parse(Args::new(words.iter().map(|w| w.to_string()).collect()))
    }

    #[test]
    fn collects_include_dirs_and_defines_in_order() {
        let request = parse_words(&["-I", "a", "-Ib", "x.p4", "-D", "N=1", "-DM"])
            .expect("a valid command line");
        assert_eq!(request.file, PathBuf::from("x.p4"));
        assert_eq!(
            request.options.include_dirs,
            vec![PathBuf::from("a"), PathBuf::from("b")]
        );
        assert_eq!(
            request.options.defines,
            vec![
                ("N".to_string(), "1".to_string()),
                ("M".to_string(), "1".to_string())
            ]
        );
        assert_eq!(request.format, Format::Human);
    }

    #[test]
    fn rejects_bad_command_lines() {
        for words in [
            &[][..],
            &["a.p4", "b.p4"],
            &["a.p4", "-I"],
            &["a.p4", "--frobnicate"],
            &["a.p4", "--diagnostics-format=xml"],
            &["a.p4", "-D1X"],
        ] {
            assert!(parse_words(words).is_err(), "{words:?}");
        }
    }

    #[test]
    fn reads_the_diagnostics_format() {
        let request = parse_words(&["--diagnostics-format=lines", "a.p4"]);
        assert_eq!(request.map(|r| r.format).ok(), Some(Format::Lines));
    }
}
