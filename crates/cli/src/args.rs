//! Command-line words to values: the small hand-written parser every
//! subcommand shares.
//!
//! Options take their value either as the next word (`-I dir`, `--out f`)
//! or joined to the flag (`-Idir` for one-letter flags, `--out=f` for long
//! ones). Anything wrong is a [`UsageError`]: exit status 2 and a message
//! that names the offending word.

use std::path::PathBuf;
use std::process::ExitCode;

/// A command line that cannot be understood.
#[derive(Debug)]
pub struct UsageError {
    message: String,
}

impl UsageError {
    pub fn new(message: impl Into<String>) -> UsageError {
        UsageError {
            message: message.into(),
        }
    }

    /// Prints the message and returns the usage-error exit status.
    pub fn report(&self, command: Option<&str>) -> ExitCode {
        eprintln!("p4bpf: error: {}", self.message);
        match command {
            Some(cmd) => eprintln!("run `p4bpf help {cmd}` for usage"),
            None => eprintln!("run `p4bpf --help` for usage"),
        }
        ExitCode::from(2)
    }
}

/// The words after the subcommand, consumed front to back.
pub struct Args {
    words: std::vec::IntoIter<String>,
}

impl Args {
    pub fn new(words: Vec<String>) -> Args {
        Args {
            words: words.into_iter(),
        }
    }

    pub fn next_word(&mut self) -> Option<String> {
        self.words.next()
    }

    /// Takes every `switch` (a flag without a value) out of the words
    /// left; whether there was one.
    pub fn take_switch(&mut self, switch: &str) -> bool {
        let (taken, rest): (Vec<String>, Vec<String>) =
            self.words.by_ref().partition(|w| w == switch);
        self.words = rest.into_iter();
        !taken.is_empty()
    }

    /// The value of option `flag` if `word` is that option, taking the next
    /// word when the value is not joined to the flag.
    pub fn option(&mut self, word: &str, flag: &str) -> Result<Option<String>, UsageError> {
        if word == flag {
            return match self.words.next() {
                Some(value) => Ok(Some(value)),
                None => Err(UsageError::new(format!("`{flag}` needs a value"))),
            };
        }
        let joined = if flag.starts_with("--") {
            word.strip_prefix(flag)
                .and_then(|rest| rest.strip_prefix('='))
        } else {
            word.strip_prefix(flag)
        };
        match joined {
            Some("") => Err(UsageError::new(format!("`{flag}` needs a value"))),
            Some(value) => Ok(Some(value.to_string())),
            None => Ok(None),
        }
    }
}

/// True when the words ask for help (`-h` or `--help` anywhere).
pub fn wants_help(words: &[String]) -> bool {
    words.iter().any(|w| w == "-h" || w == "--help")
}

/// An error for a word that looks like an option but is none of ours.
pub fn unknown_option(word: &str) -> UsageError {
    UsageError::new(format!("unknown option `{word}`"))
}

/// Takes `word` as the command's one input (`what` names it in errors),
/// refusing an unknown option or a second input.
pub fn take_input(slot: &mut Option<PathBuf>, word: String, what: &str) -> Result<(), UsageError> {
    if word.starts_with('-') {
        return Err(unknown_option(&word));
    }
    if slot.is_some() {
        return Err(UsageError::new(format!("more than one {what} (`{word}`)")));
    }
    *slot = Some(PathBuf::from(word));
    Ok(())
}

/// Takes `word` (and its value) if it is a preprocessor option, `-I DIR`
/// or `-D NAME[=VALUE]`, adding it to the front end's `options`.
pub fn front_option(
    words: &mut Args,
    word: &str,
    options: &mut p4bpf_front::Options,
) -> Result<bool, UsageError> {
    if let Some(dir) = words.option(word, "-I")? {
        options.include_dirs.push(dir.into());
    } else if let Some(define) = words.option(word, "-D")? {
        options.defines.push(parse_define(&define)?);
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// `NAME` or `NAME=VALUE` as given to `-D`; a define without a value is `1`,
/// as in cpp.
pub fn parse_define(text: &str) -> Result<(String, String), UsageError> {
    let (name, value) = text.split_once('=').unwrap_or((text, "1"));
    let is_identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_identifier {
        return Err(UsageError::new(format!(
            "`-D{text}`: `{name}` is not a macro name"
        )));
    }
    Ok((name.to_string(), value.to_string()))
}

/// A positive whole number given to `flag`.
pub fn parse_count(flag: &str, text: &str) -> Result<u64, UsageError> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(UsageError::new(format!(
            "`{flag}` needs a positive whole number, not `{text}`"
        ))),
    }
}

/// Drives a subcommand that parses its words into a request and runs it:
/// `--help` prints `usage`, a bad command line exits 2, a run that fails
/// (`Ok(false)`) exits 1, an error that stops it is printed and exits 1.
pub fn run_command<R>(
    words: Args,
    command: &str,
    usage: &str,
    parse: impl FnOnce(Args) -> Result<Option<R>, UsageError>,
    run: impl FnOnce(&R) -> Result<bool, String>,
) -> ExitCode {
    let request = match parse(words) {
        Ok(Some(request)) => request,
        Ok(None) => {
            print!("{usage}");
            return ExitCode::SUCCESS;
        }
        Err(error) => return error.report(Some(command)),
    };
    match run(&request) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("p4bpf: error: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Args {
        Args::new(words.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn switches_are_taken_out_wherever_they_are() {
        let mut words = args(&["load", "--flag", "x.p4", "--flag", "--name", "n"]);
        assert!(words.take_switch("--flag"));
        assert!(!words.take_switch("--flag"));
        let rest: Vec<String> = std::iter::from_fn(|| words.next_word()).collect();
        assert_eq!(rest, ["load", "x.p4", "--name", "n"]);
    }

    #[test]
    fn options_take_separate_or_joined_values() {
        let mut rest = args(&["dir", "tail"]);
        assert_eq!(
            rest.option("-I", "-I").ok().flatten().as_deref(),
            Some("dir")
        );
        assert_eq!(
            rest.option("-Iinc", "-I").ok().flatten().as_deref(),
            Some("inc")
        );
        assert_eq!(
            rest.option("--out=x.md", "--out").ok().flatten().as_deref(),
            Some("x.md")
        );
        assert_eq!(rest.option("--outx", "--out").ok().flatten(), None);
        assert_eq!(rest.option("-D", "-I").ok().flatten(), None);
        assert_eq!(rest.next_word().as_deref(), Some("tail"));
    }

    #[test]
    fn missing_or_empty_values_are_usage_errors() {
        assert!(args(&[]).option("-I", "-I").is_err());
        assert!(args(&[]).option("--out=", "--out").is_err());
    }

    #[test]
    fn defines_default_to_one_and_need_a_macro_name() {
        assert_eq!(
            parse_define("PORT0=2").ok(),
            Some(("PORT0".into(), "2".into()))
        );
        assert_eq!(
            parse_define("DEBUG").ok(),
            Some(("DEBUG".into(), "1".into()))
        );
        assert_eq!(parse_define("X=a=b").ok(), Some(("X".into(), "a=b".into())));
        assert!(parse_define("=3").is_err());
        assert!(parse_define("2X").is_err());
    }

    #[test]
    fn counts_are_positive() {
        assert_eq!(parse_count("--jobs", "4").ok(), Some(4));
        assert!(parse_count("--jobs", "0").is_err());
        assert!(parse_count("--jobs", "many").is_err());
    }
}
