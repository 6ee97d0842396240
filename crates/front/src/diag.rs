//! Diagnostics: what every stage reports instead of failing.
//!
//! A stage never stops at the first problem: it pushes a [`Diagnostic`] into
//! a [`Diagnostics`] list and carries on where it can. Positions are resolved
//! to original files ([`SrcLoc`]) when the diagnostic is made, so rendering
//! needs only the [`SourceMap`].

use crate::source::{SourceMap, SrcLoc};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// One message, at one place, with optional notes pointing elsewhere.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Where the problem is; `None` only for problems with no place in the
    /// program (e.g. the main file cannot be read).
    pub loc: Option<SrcLoc>,
    pub message: String,
    pub notes: Vec<Note>,
}

/// Extra context: "previous declaration is here", "search path was ...".
#[derive(Clone, Debug)]
pub struct Note {
    pub loc: Option<SrcLoc>,
    pub message: String,
}

impl Diagnostic {
    pub fn error(loc: Option<SrcLoc>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn warning(loc: Option<SrcLoc>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, loc: Option<SrcLoc>, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Note {
            loc,
            message: message.into(),
        });
        self
    }

    /// `file:line:col` of the primary location, if it has one.
    pub fn position(&self, sources: &SourceMap) -> Option<String> {
        self.loc.map(|loc| position(sources, loc))
    }

    /// The full text: header line, source excerpt with carets, then notes.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.loc {
            Some(loc) => {
                let _ = writeln!(out, "{}: {kind}: {}", position(sources, loc), self.message);
                excerpt(&mut out, sources, loc);
            }
            None => {
                let _ = writeln!(out, "{kind}: {}", self.message);
            }
        }
        for note in &self.notes {
            match note.loc {
                Some(loc) => {
                    let _ = writeln!(out, "{}: note: {}", position(sources, loc), note.message);
                    excerpt(&mut out, sources, loc);
                }
                None => {
                    let _ = writeln!(out, "note: {}", note.message);
                }
            }
        }
        out
    }
}

fn position(sources: &SourceMap, loc: SrcLoc) -> String {
    let file = sources.file(loc.file);
    let (line, col) = file.line_col(loc.lo);
    format!("{}:{line}:{col}", file.path.display())
}

/// Longest excerpt line shown; longer lines are cut to a window around the
/// caret, so a minified or machine-made line does not flood the terminal.
const EXCERPT_CHARS: usize = 120;

/// Appends the source line of `loc` and a caret line under its range (cut at
/// the end of the first line for ranges spanning several lines).
fn excerpt(out: &mut String, sources: &SourceMap, loc: SrcLoc) {
    let file = sources.file(loc.file);
    let (line, col) = file.line_col(loc.lo);
    let text = file.line_text(line);
    let line_end = file.line_start(line) + text.len() as u32;
    let width = file
        .text
        .get(loc.lo as usize..loc.hi.min(line_end).max(loc.lo) as usize)
        .map_or(1, |s| s.chars().count().max(1));
    let chars: Vec<char> = text.chars().collect();
    let caret = (col as usize - 1).min(chars.len());
    let first = caret
        .saturating_sub(EXCERPT_CHARS / 2)
        .min(chars.len().saturating_sub(EXCERPT_CHARS));
    let last = (first + EXCERPT_CHARS).min(chars.len());
    let lead = if first > 0 { "..." } else { "" };
    let tail = if last < chars.len() { "..." } else { "" };
    let shown: String = chars[first..last].iter().collect();
    let indent: String = chars[first..caret]
        .iter()
        .map(|&c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let width = width.min(last.saturating_sub(caret).max(1));
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{gutter} | {lead}{shown}{tail}");
    let _ = writeln!(
        out,
        "{pad} | {}{indent}{}",
        " ".repeat(lead.len()),
        "^".repeat(width)
    );
}

/// The diagnostics of one run, in the order they were found.
#[derive(Debug, Default)]
pub struct Diagnostics {
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Adds a diagnostic, unless an error was already reported at exactly
    /// the same place: a second error there is a cascade of the first (two
    /// checks tripping over one mistake), and one mistake gives one error.
    pub fn push(&mut self, d: Diagnostic) {
        let cascade = d.severity == Severity::Error
            && d.loc.is_some()
            && self.errors().any(|e| e.loc == d.loc);
        if !cascade {
            self.list.push(d);
        }
    }

    pub fn error(&mut self, loc: Option<SrcLoc>, message: impl Into<String>) {
        self.push(Diagnostic::error(loc, message));
    }

    pub fn warning(&mut self, loc: Option<SrcLoc>, message: impl Into<String>) {
        self.push(Diagnostic::warning(loc, message));
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter().filter(|d| d.severity == Severity::Error)
    }
}

/// `n` things in words: "1 argument", "3 arguments".
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Longest number shown in full in a message.
const NUMBER_DIGITS: usize = 24;

/// A number for a message: in full when short, else its first and last
/// digits and its length, so a huge literal does not fill the screen.
pub fn short_number(value: &impl std::fmt::Display) -> String {
    let text = value.to_string();
    let digits = text.trim_start_matches('-');
    if digits.len() <= NUMBER_DIGITS {
        return text;
    }
    let sign = if text.starts_with('-') { "-" } else { "" };
    let head = digits.get(..8).unwrap_or(digits);
    let tail = digits.get(digits.len() - 4..).unwrap_or("");
    format!("{sign}{head}...{tail} ({} digits)", digits.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, SourceFile};

    #[test]
    fn counts_and_long_numbers_read_as_words() {
        assert_eq!(counted(1, "argument"), "1 argument");
        assert_eq!(counted(0, "argument"), "0 arguments");
        assert_eq!(short_number(&"-123"), "-123");
        let huge = "9".repeat(30);
        assert_eq!(short_number(&huge), "99999999...9999 (30 digits)");
    }

    #[test]
    fn renders_position_excerpt_and_caret() {
        let mut sources = SourceMap::new();
        let id = sources.add(SourceFile::new(
            "x.p4".into(),
            "a;\nbit<8> y = z;\n".into(),
            false,
        ));
        assert_eq!(id, FileId(0));
        let d = Diagnostic::error(
            Some(SrcLoc {
                file: id,
                lo: 15,
                hi: 16,
            }),
            "unknown name `z`",
        );
        assert_eq!(
            d.render(&sources),
            "x.p4:2:13: error: unknown name `z`\n  |\n2 | bit<8> y = z;\n  |             ^\n"
        );
    }

    #[test]
    fn a_second_error_at_the_same_place_is_dropped() {
        let loc = Some(SrcLoc {
            file: FileId(0),
            lo: 3,
            hi: 5,
        });
        let mut diags = Diagnostics::default();
        diags.error(loc, "first");
        diags.error(loc, "cascade");
        diags.warning(loc, "a warning still shows");
        diags.error(
            Some(SrcLoc {
                file: FileId(0),
                lo: 6,
                hi: 7,
            }),
            "elsewhere",
        );
        let messages: Vec<&str> = diags.list.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["first", "a warning still shows", "elsewhere"]);
    }

    #[test]
    fn long_lines_are_cut_around_the_caret() {
        let mut sources = SourceMap::new();
        let line = format!("{}bad{}", "a".repeat(500), "b".repeat(500));
        let id = sources.add(SourceFile::new("x.p4".into(), line, false));
        let d = Diagnostic::error(
            Some(SrcLoc {
                file: id,
                lo: 500,
                hi: 503,
            }),
            "here",
        );
        let text = d.render(&sources);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[2].starts_with("1 | ...") && lines[2].ends_with("..."),
            "{text}"
        );
        assert!(lines[2].len() < 140, "{text}");
        let caret_col = lines[3].find('^').unwrap_or(0);
        assert_eq!(&lines[2][caret_col..caret_col + 3], "bad", "{text}");
    }
}
