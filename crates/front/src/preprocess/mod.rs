//! The C-preprocessor subset P4 programs use, with an exact map back to the
//! sources.
//!
//! The driver walks each file once with a [`scan::Scanner`]: a `#` first on
//! its line starts a directive ([`directive`], [`conditional`]), an
//! identifier naming a macro starts an expansion ([`expand`]), and all other
//! text is copied verbatim (comments included; the lexer skips them).
//! Copied text maps byte for byte to its file; an expansion maps as a whole
//! to the invocation ([`output`]). Every resource an input could exhaust is
//! bounded (include depth and count, bytes read, expansion tokens, output
//! size); reaching a bound is an error diagnostic, never a hang.

mod conditional;
mod directive;
mod expand;
mod expr;
mod include;
mod macros;
mod output;
mod scan;
#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Diagnostics, Note};
use crate::source::{FileId, SourceFile, SourceMap, SrcLoc, TranslationUnit};
use crate::Options;
use conditional::Condition;
use expand::{Expander, Site, TokenSource};
use macros::{MacroTable, Token};
use output::{Origin, Output};
use scan::{LexKind, Lexeme, Scanner};
use std::path::Path;
use std::rc::Rc;

/// Bytes of source read over all files (an include loop without guards
/// must end quickly even below the depth limit).
const MAX_SCANNED: usize = 256 << 20;

/// Unterminated conditionals reported per file.
const MAX_UNTERMINATED_REPORTS: usize = 10;

/// Preprocesses the main file `path`, whose contents are `text`, into one
/// translation unit.
pub fn preprocess(
    path: &Path,
    text: &str,
    options: &Options,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> TranslationUnit {
    let main = sources.add(SourceFile::new(path.to_path_buf(), text.to_string(), false));
    let mut pp = Preprocessor {
        options,
        sources,
        diags,
        macros: MacroTable::default(),
        out: Output::default(),
        budget: expand::TOKEN_BUDGET,
        once: Vec::new(),
        includes: 0,
        scanned: 0,
        stand_in_bytes: 0,
        include_stack: Vec::new(),
        halted: false,
    };
    pp.define_from_options();
    pp.process_file(main, 0);
    pp.out.finish()
}

struct Preprocessor<'a> {
    options: &'a Options,
    sources: &'a mut SourceMap,
    diags: &'a mut Diagnostics,
    macros: MacroTable,
    out: Output,
    /// Expansion tokens left for the whole run.
    budget: usize,
    /// Files marked `#pragma once`.
    once: Vec<FileId>,
    /// `#include`s followed so far.
    includes: usize,
    scanned: usize,
    /// Bytes of the stand-in files made for `#line` so far.
    stand_in_bytes: usize,
    /// The `#include` directives of the files being read, outermost first.
    include_stack: Vec<SrcLoc>,
    /// A global limit was hit: stop producing anything.
    halted: bool,
}

/// The state of one file being preprocessed.
struct FileState {
    id: FileId,
    text: Rc<str>,
    /// Where positions of this file are reported: the file itself, or after
    /// `#line` a stand-in file with the requested name and numbering.
    view: View,
    conditions: Vec<Condition>,
    /// Text before this offset has been written or dropped.
    copied_upto: usize,
    depth: u32,
}

#[derive(Clone, Copy)]
struct View {
    file: FileId,
    /// Added to an offset of this file to get the offset in `file`.
    shift: i64,
}

impl FileState {
    fn active(&self) -> bool {
        self.conditions.last().is_none_or(|c| c.active)
    }

    fn origin(&self, offset: usize) -> Origin {
        Origin {
            file: self.view.file,
            offset: self.shifted(offset),
        }
    }

    fn loc(&self, lo: usize, hi: usize) -> SrcLoc {
        SrcLoc {
            file: self.view.file,
            lo: self.shifted(lo),
            hi: self.shifted(hi),
        }
    }

    fn shifted(&self, offset: usize) -> u32 {
        (offset as i64 + self.view.shift).clamp(0, u32::MAX as i64) as u32
    }
}

impl Preprocessor<'_> {
    /// `-D NAME[=VALUE]` from the command line, as if `#define NAME VALUE`.
    fn define_from_options(&mut self) {
        for (name, value) in &self.options.defines {
            let line = format!("{name} {}", value.replace(['\n', '\r'], " "));
            let mut scanner = Scanner::new(&line);
            let Some(name_lexeme) = scanner.next_in_line().filter(|l| l.kind == LexKind::Ident)
            else {
                self.diags
                    .error(None, format!("invalid macro name `{name}` in -D"));
                continue;
            };
            let rest: Vec<(Lexeme, Token)> = std::iter::from_fn(|| scanner.next_in_line())
                .map(|l| (l, Token::from_lexeme(&line, l)))
                .collect();
            match macros::parse_definition(name_lexeme.hi, &rest, None) {
                Ok(mac) => {
                    self.macros
                        .define(line[name_lexeme.lo..name_lexeme.hi].into(), mac);
                }
                Err(message) => self.diags.error(None, format!("in -D {name}: {message}")),
            }
        }
    }

    fn process_file(&mut self, id: FileId, depth: u32) {
        let text: Rc<str> = Rc::from(self.sources.file(id).text.as_str());
        self.scanned += text.len();
        if self.scanned > MAX_SCANNED {
            self.diags.error(
                None,
                "the program and its includes are too large to preprocess",
            );
            self.halted = true;
            return;
        }
        let mut file = FileState {
            id,
            text: text.clone(),
            view: View { file: id, shift: 0 },
            conditions: Vec::new(),
            copied_upto: 0,
            depth,
        };
        let mut scanner = Scanner::new(&text);
        file.copied_upto = scanner.pos(); // a byte-order mark is not program text
        while !self.halted {
            let Some(lexeme) = scanner.next() else { break };
            if starts_directive(&text, lexeme) {
                self.directive(&mut file, &mut scanner, lexeme);
            } else if !file.active() {
                scanner.skip_line();
            } else if lexeme.kind == LexKind::Ident
                && (self.macros.is_defined(&text[lexeme.lo..lexeme.hi])
                    || expand::is_builtin_macro(&text[lexeme.lo..lexeme.hi]))
            {
                self.expand_in_text(&mut file, &mut scanner, lexeme);
            }
        }
        if file.active() {
            self.copy_upto(&mut file, text.len());
        }
        // The innermost are the likeliest culprits; a few are enough.
        for condition in file.conditions.iter().rev().take(MAX_UNTERMINATED_REPORTS) {
            let message = format!("`#{}` without matching `#endif`", condition.directive);
            self.error(condition.loc, message);
        }
    }

    /// Copies the text of `file` not yet copied, up to `end`.
    fn copy_upto(&mut self, file: &mut FileState, end: usize) {
        if let Some(text) = file.text.get(file.copied_upto..end) {
            if self.out.copy(text, file.origin(file.copied_upto)).is_err() {
                self.output_too_large(file, end);
            }
        }
        file.copied_upto = end;
    }

    fn output_too_large(&mut self, file: &FileState, at: usize) {
        if !self.halted {
            let message = format!(
                "preprocessed program exceeds {} MiB",
                output::MAX_OUTPUT >> 20
            );
            self.error(file.loc(at, at), message);
        }
        self.halted = true;
    }

    /// Expands the macro invocation starting with `name` in program text.
    fn expand_in_text(&mut self, file: &mut FileState, scanner: &mut Scanner, name: Lexeme) {
        self.copy_upto(file, name.lo);
        let text = file.text.clone();
        let mut source = FileTokens {
            scanner,
            end: name.hi,
        };
        let reported_as = self.sources.file(file.view.file);
        let line = reported_as.line_col(file.shifted(name.lo)).0;
        let site = Site {
            file: reported_as.path.display().to_string(),
            line,
        };
        let mut expander = Expander::at(&self.macros, &mut self.budget, site);
        // The space before the name is already copied.
        let first = Token {
            space_before: false,
            ..Token::from_lexeme(&text, name)
        };
        let result = expander.expand(vec![first], &mut source);
        let end = source.end;
        let errors = std::mem::take(&mut expander.errors);
        for message in errors {
            self.error(file.loc(name.lo, end), message);
        }
        let unchanged =
            end == name.hi && matches!(result.as_slice(), [t] if *t.text == text[name.lo..name.hi]);
        if unchanged {
            return; // a function-like macro without arguments: copied as text
        }
        let after = text.get(end..).and_then(|rest| rest.chars().next());
        let spelled = expand::spell(&result, self.out.last_char(), after);
        if self
            .out
            .expanded(&spelled, file.origin(name.lo), (end - name.lo) as u32)
            .is_err()
        {
            self.output_too_large(file, name.lo);
        }
        file.copied_upto = end;
    }

    fn error(&mut self, loc: SrcLoc, message: impl Into<String>) {
        self.report(Diagnostic::error(Some(loc), message));
    }

    fn warning(&mut self, loc: SrcLoc, message: impl Into<String>) {
        self.report(Diagnostic::warning(Some(loc), message));
    }

    /// Reports `d`. A problem found inside a built-in file is the
    /// program's doing (a macro it defined, an include it chose), so it is
    /// reported at the program's `#include`, with a note pointing inside.
    fn report(&mut self, mut d: Diagnostic) {
        let in_builtin = d.loc.is_some_and(|loc| self.sources.file(loc.file).builtin);
        let include_site = self
            .include_stack
            .iter()
            .rev()
            .find(|site| !self.sources.file(site.file).builtin);
        if let (true, Some(&site)) = (in_builtin, include_site) {
            let inside = d.loc.replace(site);
            d.notes.insert(
                0,
                Note {
                    loc: inside,
                    message: "raised by this line of a built-in file".into(),
                },
            );
        }
        self.diags.push(d);
    }
}

/// A `#` that is the first token on its line.
fn starts_directive(text: &str, lexeme: Lexeme) -> bool {
    lexeme.line_start
        && lexeme.kind == LexKind::Punct
        && text.get(lexeme.lo..lexeme.hi) == Some("#")
}

/// The rest of the current file as a token source for macro arguments. It
/// stops before a directive line.
struct FileTokens<'s, 'a> {
    scanner: &'s mut Scanner<'a>,
    /// End of the last token taken.
    end: usize,
}

impl TokenSource for FileTokens<'_, '_> {
    fn next_token(&mut self) -> Option<Token> {
        let mut ahead = self.scanner.clone();
        let lexeme = ahead.next()?;
        if starts_directive(ahead.text(), lexeme) {
            return None;
        }
        *self.scanner = ahead;
        self.end = lexeme.hi;
        Some(Token::from_lexeme(self.scanner.text(), lexeme))
    }

    fn next_is_lparen(&mut self) -> bool {
        let mut ahead = self.scanner.clone();
        let text = ahead.text();
        ahead
            .next()
            .is_some_and(|l| !starts_directive(text, l) && text.get(l.lo..l.hi) == Some("("))
    }
}
