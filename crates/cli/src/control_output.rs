//! What the control-plane commands (`pipeline`, `port`, `table`, `counter`)
//! share: their failure report (one line, exit status 1), splitting words
//! into positionals and the `--json` flag, and the two output forms: tab
//! separated lines for shell scripts, or JSON.

use crate::args::{self, Args, UsageError};
pub use p4bpf_runtime::json::{json_object, json_string};
use std::io::Write;
use std::process::ExitCode;

/// Words after the subcommand: positionals, and the options every
/// control-plane command knows.
#[derive(Debug, Default)]
pub struct Words {
    pub positional: Vec<String>,
    pub json: bool,
    /// Options with values, in order: (flag, value).
    pub options: Vec<(String, String)>,
}

/// Split `words`, accepting `--json` and the value options in `flags`.
pub fn split(mut words: Args, flags: &[&str]) -> Result<Words, UsageError> {
    let mut split = Words::default();
    'words: while let Some(word) = words.next_word() {
        if word == "--json" {
            split.json = true;
            continue;
        }
        for flag in flags {
            if let Some(value) = words.option(&word, flag)? {
                split.options.push((flag.to_string(), value));
                continue 'words;
            }
        }
        if word.starts_with("--") {
            return Err(args::unknown_option(&word));
        }
        split.positional.push(word);
    }
    Ok(split)
}

impl Words {
    pub fn option(&self, flag: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(f, _)| f == flag)
            .map(|(_, v)| v.as_str())
    }
}

/// Report a failed operation: one line on stderr, exit status 1.
pub fn fail(error: impl std::fmt::Display) -> ExitCode {
    eprintln!("p4bpf: error: {error}");
    ExitCode::FAILURE
}

/// Print `lines`; a closed stdout (`| head`) ends the output quietly.
pub fn print_lines(lines: &[String]) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    for line in lines {
        if writeln!(stdout, "{line}").is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_and_splits_options() {
        assert_eq!(json_string("a\"b\\\n"), "\"a\\\"b\\\\\\u000a\"");
        let words = Args::new(
            ["r", "--json", "--port", "3", "x=1"]
                .iter()
                .map(|w| w.to_string())
                .collect(),
        );
        let split = split(words, &["--port"]).ok();
        assert!(split.is_some_and(|s| s.json
            && s.option("--port") == Some("3")
            && s.positional == ["r", "x=1"]));
    }
}
