//! Directive lines other than conditionals: `#define`, `#undef`,
//! `#include`, `#line`, `#error`, `#warning`, `#pragma`.
//!
//! Rules: a directive runs to the end of its line (continued by
//! backslash-newline or by a comment that spans lines) and produces no
//! text; its newline is kept. In skipped groups only conditionals are looked
//! at. `#pragma once` is honoured; other pragmas are ignored with a warning,
//! since the P4 lexer must not see `#` lines.

use super::include::{self, Found};
use super::macros::{self, Token};
use super::scan::{LexKind, Lexeme, Scanner};
use super::{FileState, Preprocessor, View, MAX_SCANNED};
use crate::diag::Diagnostic;
use crate::source::{FileId, SourceFile, SrcLoc};
use std::path::Path;

/// Nested `#include`s allowed (include guards stop legitimate recursion
/// long before).
const MAX_INCLUDE_DEPTH: u32 = 200;
/// `#include`s followed over a whole run.
const MAX_INCLUDES: usize = 2_000;
/// Bytes of stand-in files `#line` may create over a run (each copies the
/// rest of its file), counting a fixed cost per file so that their number
/// stays small too.
const MAX_STAND_IN_BYTES: usize = 64 << 20;
const STAND_IN_COST: usize = 64 << 10;
/// Largest line number `#line` accepts.
const MAX_LINE_NUMBER: usize = 1 << 20;

impl Preprocessor<'_> {
    /// Handles the directive whose `#` is `hash`; leaves `scanner` on the
    /// newline that ends it.
    pub(super) fn directive(&mut self, file: &mut FileState, scanner: &mut Scanner, hash: Lexeme) {
        let was_active = file.active();
        if was_active {
            self.copy_upto(file, hash.lo);
        }
        let text = file.text.clone();
        let name = scanner.next_in_line();
        let rest: Vec<(Lexeme, Token)> = std::iter::from_fn(|| scanner.next_in_line())
            .map(|l| (l, Token::from_lexeme(&text, l)))
            .collect();
        let end = scanner.pos();
        file.copied_upto = end;
        let Some(name) = name else { return }; // `#` alone does nothing
        let loc = file.loc(hash.lo, name.hi);
        let word = if name.kind == LexKind::Ident {
            &text[name.lo..name.hi]
        } else {
            ""
        };
        if let Some(conditional) = CONDITIONALS.iter().find(|c| **c == word) {
            return self.conditional(file, conditional, loc, &rest);
        }
        if !was_active {
            return;
        }
        let raw = text.get(name.hi..end).unwrap_or("").trim();
        match word {
            "define" => self.define(file, loc, &rest),
            "undef" => self.undef(file, loc, &rest),
            "include" => self.include(file, loc, name.hi, end),
            "line" => self.line(file, loc, &rest, end, false),
            "error" => self.error(loc, format!("#error {raw}")),
            "warning" => self.warning(loc, format!("#warning {raw}")),
            "pragma" => self.pragma(file, loc, &rest),
            "" if name.kind == LexKind::Number => {
                let marker: Vec<(Lexeme, Token)> =
                    std::iter::once((name, Token::from_lexeme(&text, name)))
                        .chain(rest)
                        .collect();
                self.line(file, loc, &marker, end, true)
            }
            "" => self.error(
                loc,
                format!("invalid directive `#{}`", &text[name.lo..name.hi]),
            ),
            _ => self.error(loc, format!("unknown directive `#{word}`")),
        }
    }

    fn define(&mut self, file: &FileState, loc: SrcLoc, rest: &[(Lexeme, Token)]) {
        let Some(((name_lexeme, name), body)) = rest.split_first() else {
            return self.error(loc, "`#define` needs a macro name");
        };
        let name_loc = file.loc(name_lexeme.lo, name_lexeme.hi);
        if name.kind != LexKind::Ident {
            return self.error(
                name_loc,
                format!("`{}` is not a valid macro name", name.text),
            );
        }
        if &*name.text == "defined" {
            return self.error(name_loc, "`defined` cannot be defined as a macro");
        }
        match macros::parse_definition(name_lexeme.hi, body, Some(name_loc)) {
            Ok(mac) => {
                if let Some(previous) = self.macros.define(name.text.clone(), mac) {
                    let mut d = Diagnostic::warning(
                        Some(name_loc),
                        format!("macro `{}` redefined", name.text),
                    );
                    if let Some(previous) = previous {
                        d = d.with_note(Some(previous), "previous definition is here");
                    }
                    self.report(d);
                }
            }
            Err(message) => {
                let loc = body.first().map_or(name_loc, |(l, _)| file.loc(l.lo, l.hi));
                self.error(loc, message);
            }
        }
    }

    fn undef(&mut self, file: &FileState, loc: SrcLoc, rest: &[(Lexeme, Token)]) {
        match rest {
            [(_, name), extra @ ..] if name.kind == LexKind::Ident => {
                self.macros.undefine(&name.text);
                if let Some((l, _)) = extra.first() {
                    self.warning(file.loc(l.lo, l.hi), "extra tokens after `#undef NAME`");
                }
            }
            _ => self.error(loc, "`#undef` needs a macro name"),
        }
    }

    /// `#include "f"` or `#include <f>`, or a macro expanding to either.
    /// `from..end` is the text after the word `include`.
    fn include(&mut self, file: &mut FileState, loc: SrcLoc, from: usize, end: usize) {
        let text = file.text.clone();
        let Some((name, quoted, extra)) = self.header_name(text.get(from..end).unwrap_or(""))
        else {
            return self.error(loc, "`#include` expects \"FILE\" or <FILE>");
        };
        if extra {
            self.warning(loc, "extra tokens after the file name of `#include`");
        }
        if file.depth >= MAX_INCLUDE_DEPTH {
            return self.error(
                loc,
                format!("`#include` nested more than {MAX_INCLUDE_DEPTH} levels deep"),
            );
        }
        self.includes += 1;
        if self.includes > MAX_INCLUDES {
            self.error(loc, format!("more than {MAX_INCLUDES} files included"));
            self.halted = true;
            return;
        }
        let includer = self.sources.file(file.id);
        let found = match include::resolve(&name, quoted, includer, &self.options.include_dirs) {
            Ok(found) => found,
            Err(searched) => {
                let d = Diagnostic::error(Some(loc), format!("cannot find include file `{name}`"))
                    .with_note(None, format!("searched {}", searched.join(", ")));
                return self.report(d);
            }
        };
        let Some(id) = self.load(found, loc) else {
            return;
        };
        if !self.once.contains(&id) {
            self.include_stack.push(loc);
            self.process_file(id, file.depth + 1);
            self.include_stack.pop();
        }
    }

    /// The source-map entry of an included file, read on first use.
    fn load(&mut self, found: Found, loc: SrcLoc) -> Option<FileId> {
        let (path, builtin) = match &found {
            Found::Builtin { path, .. } => (path, true),
            Found::Disk(path) => (path, false),
        };
        if let Some(id) = self.sources.find(path) {
            return Some(id);
        }
        let text = match found {
            Found::Builtin { text, .. } => text.to_string(),
            Found::Disk(ref path) => {
                match read_limited(path, MAX_SCANNED - self.scanned.min(MAX_SCANNED)) {
                    Ok(text) => text,
                    Err(message) => {
                        self.error(loc, format!("cannot read `{}`: {message}", path.display()));
                        return None;
                    }
                }
            }
        };
        Some(
            self.sources
                .add(SourceFile::new(path.clone(), text, builtin)),
        )
    }

    /// The file name of an `#include` and whether it was quoted; `args` is
    /// the raw text after `include`, macro-expanded if it is neither form.
    fn header_name(&mut self, args: &str) -> Option<(String, bool, bool)> {
        if let Some(found) = literal_header_name(args) {
            return Some(found);
        }
        let mut scanner = Scanner::new(args);
        let tokens: Vec<Token> = std::iter::from_fn(|| scanner.next_in_line())
            .map(|l| Token::from_lexeme(args, l))
            .collect();
        let mut expander = super::Expander::new(&self.macros, &mut self.budget);
        let expanded = expander.expand(tokens, &mut super::expand::NoMoreTokens);
        literal_header_name(&super::expand::spell(&expanded, None, None))
    }

    /// `#line N` or `#line N "file"`: later positions of this file are
    /// reported as line N (of "file") onwards, through a stand-in file that
    /// has the same text at those line numbers.
    ///
    /// With `marker`, `args` are those of a GNU line marker `# N "FILE"
    /// FLAGS...` (found in already preprocessed files), whose line number
    /// may be 0 and whose flags are ignored.
    fn line(
        &mut self,
        file: &mut FileState,
        loc: SrcLoc,
        args: &[(Lexeme, Token)],
        end: usize,
        marker: bool,
    ) {
        let lowest = usize::from(!marker);
        let number = args.first().filter(|(_, t)| t.kind == LexKind::Number);
        let Some(line) = number
            .and_then(|(_, t)| t.text.parse::<usize>().ok())
            .filter(|n| (lowest..=MAX_LINE_NUMBER).contains(n))
        else {
            return self.error(
                loc,
                format!("`#line` expects a line number from 1 to {MAX_LINE_NUMBER}"),
            );
        };
        let flags_ok = |flags: &[(Lexeme, Token)]| {
            flags.is_empty() || (marker && flags.iter().all(|(_, t)| t.kind == LexKind::Number))
        };
        let name = match args.get(1) {
            None => None,
            Some((_, t)) if t.kind == LexKind::Str && flags_ok(args.get(2..).unwrap_or(&[])) => {
                Some(
                    t.text
                        .trim_start_matches('"')
                        .trim_end_matches('"')
                        .to_string(),
                )
            }
            Some(_) => {
                return self.error(
                    loc,
                    "`#line` expects a line number and an optional \"FILE\"",
                )
            }
        };
        let line = line.max(1);
        let next_line = (end + 1).min(file.text.len());
        let stand_in_len = STAND_IN_COST + line - 1 + (file.text.len() - next_line);
        if self.stand_in_bytes + stand_in_len > MAX_STAND_IN_BYTES {
            return self.warning(loc, "too many `#line` directives; this one is ignored");
        }
        self.stand_in_bytes += stand_in_len;
        self.copy_upto(file, next_line);
        let current = self.sources.file(file.view.file);
        let path = name.map_or_else(|| current.path.clone(), Into::into);
        let mut stand_in = "\n".repeat(line - 1);
        stand_in.push_str(file.text.get(next_line..).unwrap_or(""));
        let builtin = current.builtin;
        let id = self.sources.add(SourceFile::new(path, stand_in, builtin));
        file.view = View {
            file: id,
            shift: (line - 1) as i64 - next_line as i64,
        };
    }

    fn pragma(&mut self, file: &FileState, loc: SrcLoc, rest: &[(Lexeme, Token)]) {
        match rest.first() {
            Some((_, t)) if &*t.text == "once" => self.once.push(file.id),
            Some((_, t)) => self.warning(loc, format!("ignoring unknown pragma `{}`", t.text)),
            None => {}
        }
    }
}

/// The text of a file of at most `limit` bytes.
fn read_limited(path: &Path, limit: usize) -> Result<String, String> {
    let too_large = std::fs::metadata(path).is_ok_and(|m| m.len() > limit as u64);
    if too_large {
        return Err("the program and its includes are too large to preprocess".into());
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

const CONDITIONALS: &[&str] = &[
    "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif",
];

/// `"name"` or `<name>` at the start of `args`, whether it was quoted and
/// whether other tokens follow it.
fn literal_header_name(args: &str) -> Option<(String, bool, bool)> {
    let trimmed = args.trim_start();
    let (quoted, close) = match trimmed.chars().next()? {
        '"' => (true, '"'),
        '<' => (false, '>'),
        _ => return None,
    };
    let inner = &trimmed[1..];
    let len = inner.find(close)?;
    let name = &inner[..len];
    let mut after = Scanner::new(&inner[len + 1..]);
    if name.is_empty() || name.contains('\n') {
        return None;
    }
    Some((name.to_string(), quoted, after.next_in_line().is_some()))
}
