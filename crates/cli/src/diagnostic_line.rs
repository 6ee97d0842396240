//! The machine-readable diagnostic format (`check --diagnostics-format=lines`),
//! written by `check` and read back by `conformance`.
//!
//! One diagnostic per line, four tab-separated fields:
//! `severity origin position message`, where origin says whether the
//! primary location is in the program's own files (`program`), in one of our
//! built-in architecture files (`builtin`), or nowhere (`none`, position `-`).
//! Tabs and line breaks inside the message become spaces, so a line is
//! always one diagnostic.
//!
//! Commands without that format (`compile`) are read from their rendered
//! headlines instead ([`parse_rendered`]), where built-in files show as
//! `p4include/NAME`.

use p4bpf_front::diag::{Diagnostic, Severity};
use p4bpf_front::source::SourceMap;

/// Where a diagnostic's primary location lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Program,
    Builtin,
    None,
}

/// One diagnostic as read back from its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiagnosticLine {
    pub is_error: bool,
    pub origin: Origin,
    /// `file:line:col`, or `-` when the diagnostic has no location.
    pub position: String,
    pub message: String,
}

impl DiagnosticLine {
    /// The diagnostic as one human-readable line: `file:line:col: message`.
    pub fn headline(&self) -> String {
        let kind = if self.is_error { "error" } else { "warning" };
        match self.origin {
            Origin::None => format!("{kind}: {}", self.message),
            _ => format!("{}: {kind}: {}", self.position, self.message),
        }
    }
}

/// Formats `diagnostic` as one line (without the line break).
pub fn write(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let severity = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let origin = match diagnostic.loc {
        Some(loc) if sources.file(loc.file).builtin => "builtin",
        Some(_) => "program",
        None => "none",
    };
    let position = diagnostic
        .position(sources)
        .unwrap_or_else(|| "-".to_string());
    format!(
        "{severity}\t{origin}\t{}\t{}",
        one_line(&position),
        one_line(&diagnostic.message)
    )
}

fn one_line(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

/// Reads one line back; `None` for lines that are not diagnostics (e.g. a
/// panic message printed by a crashing front end).
pub fn parse(line: &str) -> Option<DiagnosticLine> {
    let mut fields = line.splitn(4, '\t');
    let is_error = match fields.next()? {
        "error" => true,
        "warning" => false,
        _ => return None,
    };
    let origin = match fields.next()? {
        "program" => Origin::Program,
        "builtin" => Origin::Builtin,
        "none" => Origin::None,
        _ => return None,
    };
    let position = fields.next()?.to_string();
    let message = fields.next()?.to_string();
    Some(DiagnosticLine {
        is_error,
        origin,
        position,
        message,
    })
}

/// Where rendered diagnostics place our built-in architecture files.
const BUILTIN_PREFIX: &str = "p4include/";

/// Reads a rendered headline back: `file:line:col: error: message` or
/// `error: message`; `None` for excerpt, caret and note lines.
pub fn parse_rendered(line: &str) -> Option<DiagnosticLine> {
    let is_excerpt = line
        .split_once('|')
        .is_some_and(|(gutter, _)| gutter.trim().chars().all(|c| c.is_ascii_digit()));
    if is_excerpt {
        return None;
    }
    for (marker, is_error) in [(": error: ", true), (": warning: ", false)] {
        if let Some((position, message)) = line.split_once(marker) {
            let origin = if position.starts_with(BUILTIN_PREFIX) {
                Origin::Builtin
            } else {
                Origin::Program
            };
            let position = position.to_string();
            return Some(DiagnosticLine {
                is_error,
                origin,
                position,
                message: message.to_string(),
            });
        }
    }
    let (is_error, message) = match line.strip_prefix("error: ") {
        Some(message) => (true, message),
        None => (false, line.strip_prefix("warning: ")?),
    };
    Some(DiagnosticLine {
        is_error,
        origin: Origin::None,
        position: "-".to_string(),
        message: message.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4bpf_front::source::{SourceFile, SrcLoc};

    #[test]
    fn lines_round_trip_with_origin() {
        let mut sources = SourceMap::new();
        let user = sources.add(SourceFile::new("a.p4".into(), "x y\n".into(), false));
        let builtin = sources.add(SourceFile::new("core.p4".into(), "z\n".into(), true));
        let in_user = Diagnostic::error(
            Some(SrcLoc {
                file: user,
                lo: 2,
                hi: 3,
            }),
            "bad\tname\nhere",
        );
        let line = write(&in_user, &sources);
        assert_eq!(line, "error\tprogram\ta.p4:1:3\tbad name here");
        let back = parse(&line);
        assert_eq!(
            back.as_ref().map(|d| d.headline()).as_deref(),
            Some("a.p4:1:3: error: bad name here")
        );

        let in_builtin = Diagnostic::warning(
            Some(SrcLoc {
                file: builtin,
                lo: 0,
                hi: 1,
            }),
            "w",
        );
        assert_eq!(
            parse(&write(&in_builtin, &sources)).map(|d| d.origin),
            Some(Origin::Builtin)
        );
        let nowhere = Diagnostic::error(None, "cannot read x");
        assert_eq!(
            parse(&write(&nowhere, &sources))
                .map(|d| d.headline())
                .as_deref(),
            Some("error: cannot read x")
        );
    }

    #[test]
    fn rendered_headlines_are_read_back() {
        let in_program = parse_rendered("a/b.p4:10:8: error: header `h` is 3 bits long");
        assert_eq!(in_program.as_ref().map(|d| d.origin), Some(Origin::Program));
        assert_eq!(
            in_program.map(|d| d.headline()).as_deref(),
            Some("a/b.p4:10:8: error: header `h` is 3 bits long")
        );
        let in_builtin = parse_rendered("p4include/core.p4:3:1: warning: w");
        assert_eq!(
            in_builtin.map(|d| (d.origin, d.is_error)),
            Some((Origin::Builtin, false))
        );
        let nowhere = parse_rendered("error: clang is not installed");
        assert_eq!(nowhere.map(|d| d.origin), Some(Origin::None));
        assert_eq!(parse_rendered("10 | header ThreeBit_h {"), None);
        assert_eq!(parse_rendered("   |        ^^^^"), None);
        assert_eq!(
            parse_rendered("12 | // x.p4:1:1: error: quoted in a comment"),
            None
        );
    }

    #[test]
    fn other_lines_are_not_diagnostics() {
        assert_eq!(parse("thread 'main' panicked at src/x.rs:1:1:"), None);
        assert_eq!(parse("error\tsomewhere\tx\ty"), None);
        assert_eq!(parse("error\tprogram\tx"), None);
    }
}
