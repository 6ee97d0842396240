//! Recursive-descent parser for P4_16: tokens → [`ast::Program`].
//!
//! Parsing never fails: it returns a tree and reports problems as
//! diagnostics, recovering at statement and declaration boundaries so one
//! run reports several errors. This file holds the small parser API the
//! grammar files use (`at`, `eat`, `expect`, spans, recovery) and the
//! guards that keep any input from hanging or overflowing the stack:
//! a step limit between two consumed tokens and a nesting-depth limit. Either
//! guard reports one error and ends the parse.
//!
//! The grammar itself lives in one file per area: [`items`] (top-level
//! declarations), [`blocks`] (parser and control bodies, parser states),
//! [`tables`], [`statements`], [`expressions`], [`keysets`], [`types`] and
//! [`annotations`]. [`lookahead`] settles P4's ambiguities (`(T) e` and
//! `f<T>(x)`) by scanning ahead, with the type names in [`scopes`].

mod annotations;
mod blocks;
mod expressions;
mod items;
mod keysets;
mod lookahead;
mod scopes;
mod statements;
mod tables;
mod types;

use crate::ast::{self, Expr, ExprId, ExprKind, Ident};
use crate::diag::{Diagnostic, Diagnostics};
use crate::lexer::{Token, TokenKind};
use crate::source::{Span, TranslationUnit};
use scopes::Scopes;
use std::cell::Cell;

/// Deeper nesting than this (of expressions, statements, types) is an error.
/// Keeps recursion far from the stack limit, even in debug builds.
const MAX_DEPTH: u32 = 200;

/// Steps (token inspections) allowed between two consumed tokens before the
/// parser is considered stuck in a loop. Well above the longest lookahead
/// scan (see `lookahead`).
const MAX_STEPS_WITHOUT_PROGRESS: u32 = 1_000_000;

/// After this many errors the parse stops: the rest would mostly be noise.
const MAX_ERRORS: usize = 100;

/// Parses a whole translation unit.
pub fn parse(unit: &TranslationUnit, tokens: &[Token], diags: &mut Diagnostics) -> ast::Program {
    let mut p = Parser::new(unit, tokens, diags);
    let decls = p.program();
    ast::Program {
        decls,
        expr_count: p.next_expr,
    }
}

static EOF_TOKEN: Token = Token {
    kind: TokenKind::Eof,
    span: Span { lo: 0, hi: 0 },
};

struct Parser<'a> {
    unit: &'a TranslationUnit,
    tokens: &'a [Token],
    pos: usize,
    diags: &'a mut Diagnostics,
    next_expr: u32,
    /// End of the last consumed token, for spans of finished nodes.
    prev_end: u32,
    steps: Cell<u32>,
    depth: u32,
    /// Set when a guard tripped: the parse stops and reports nothing more.
    aborted: bool,
    /// Inside a width `bit<...>` (and not nested in brackets), where `>`
    /// closes the list instead of comparing.
    in_width: bool,
    /// Token index of the last error, so one bad token gives one message.
    last_error_at: Option<usize>,
    /// Errors reported so far.
    errors: usize,
    /// Which names are types where the parser stands.
    names: Scopes,
}

impl<'a> Parser<'a> {
    fn new(
        unit: &'a TranslationUnit,
        tokens: &'a [Token],
        diags: &'a mut Diagnostics,
    ) -> Parser<'a> {
        Parser {
            unit,
            tokens,
            pos: 0,
            diags,
            next_expr: 0,
            prev_end: 0,
            steps: Cell::new(0),
            depth: 0,
            aborted: false,
            in_width: false,
            last_error_at: None,
            errors: 0,
            names: Scopes::new(),
        }
    }

    // -- Looking at tokens --------------------------------------------------

    /// The token `n` places ahead; the end of file past the end, or once
    /// the step limit tripped (so that every loop ends).
    fn token(&self, n: usize) -> &'a Token {
        self.steps.set(self.steps.get().saturating_add(1));
        if self.stuck() {
            return &EOF_TOKEN;
        }
        let tokens = self.tokens;
        tokens
            .get(self.pos + n)
            .or(tokens.last())
            .unwrap_or(&EOF_TOKEN)
    }

    /// The kind of the token `n` places ahead.
    fn nth(&self, n: usize) -> &'a TokenKind {
        &self.token(n).kind
    }

    fn peek(&self) -> &'a TokenKind {
        self.nth(0)
    }

    fn at(&self, kind: &TokenKind) -> bool {
        self.peek() == kind
    }

    fn at_eof(&self) -> bool {
        self.at(&TokenKind::Eof)
    }

    fn span(&self) -> Span {
        self.token(0).span
    }

    /// True when the two tokens at `n` and `n + 1` touch (no space between),
    /// as the two `>` of a shift must.
    fn adjacent(&self, n: usize) -> bool {
        self.token(n).span.hi == self.token(n + 1).span.lo
    }

    /// A span from `lo` to the end of the last consumed token.
    fn span_from(&self, lo: Span) -> Span {
        Span::new(lo.lo, self.prev_end.max(lo.lo))
    }

    // -- Consuming tokens ---------------------------------------------------

    fn bump(&mut self) -> &'a Token {
        if self.stuck() {
            self.abort();
        }
        let tok = self.token(0);
        if self.pos < self.tokens.len().saturating_sub(1) {
            self.pos += 1;
            self.prev_end = tok.span.hi;
        }
        self.steps.set(0);
        tok
    }

    fn eat(&mut self, kind: &TokenKind) -> bool {
        if self.at(kind) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes `kind` or reports "expected `kind`, found ...".
    fn expect(&mut self, kind: &TokenKind) -> bool {
        if self.eat(kind) {
            return true;
        }
        self.error_expected(&kind.describe());
        false
    }

    // -- Names --------------------------------------------------------------

    /// The spelling of a token usable as a name: an identifier or one of
    /// the keywords the grammar also allows as names (`apply`, `key`, ...).
    fn name_text(kind: &TokenKind) -> Option<&str> {
        Some(match kind {
            TokenKind::Ident(name) => name,
            TokenKind::Apply => "apply",
            TokenKind::Key => "key",
            TokenKind::Actions => "actions",
            TokenKind::State => "state",
            TokenKind::Entries => "entries",
            TokenKind::Type => "type",
            TokenKind::Priority => "priority",
            TokenKind::List => "list",
            _ => return None,
        })
    }

    fn at_name(&self) -> bool {
        Self::name_text(self.peek()).is_some()
    }

    fn nth_is_name(&self, n: usize) -> bool {
        Self::name_text(self.nth(n)).is_some()
    }

    /// Consumes a name, or reports an error and returns an empty one.
    fn name(&mut self) -> Ident {
        match Self::name_text(self.peek()) {
            Some(text) => {
                let name = text.to_string();
                let span = self.bump().span;
                Ident { name, span }
            }
            None => {
                self.error_expected("a name");
                Ident {
                    name: String::new(),
                    span: self.span(),
                }
            }
        }
    }

    // -- Expressions ----------------------------------------------------------

    fn new_expr(&mut self, kind: ExprKind, span: Span) -> Expr {
        let id = ExprId(self.next_expr);
        self.next_expr += 1;
        Expr { id, kind, span }
    }

    fn error_expr(&mut self) -> Expr {
        let span = self.span();
        self.new_expr(ExprKind::Error, span)
    }

    // -- Diagnostics and recovery --------------------------------------------

    fn error_at(&mut self, span: Span, message: String) {
        if self.aborted || self.last_error_at == Some(self.pos) {
            return;
        }
        self.last_error_at = Some(self.pos);
        self.errors += 1;
        let loc = self.unit.resolve(span);
        let mut diagnostic = Diagnostic::error(loc, message);
        if self.errors >= MAX_ERRORS {
            diagnostic = diagnostic.with_note(
                None,
                format!("too many syntax errors ({MAX_ERRORS}), giving up"),
            );
            self.abort();
        }
        self.diags.push(diagnostic);
    }

    /// Reports an error at the current token.
    fn error(&mut self, message: String) {
        let span = self.span();
        self.error_at(span, message);
    }

    /// "expected WHAT, found `tok`" at the current token; at the end of
    /// file, just after the last token, where the missing text belongs
    /// (not on the blank lines or comments that may follow it).
    fn error_expected(&mut self, what: &str) {
        let found = self.peek().describe();
        if let TokenKind::Unknown(_) = self.peek() {
            self.error(format!("unexpected character {found}"));
            return;
        }
        let last = self.pos.checked_sub(1).and_then(|i| self.tokens.get(i));
        let span = match last {
            Some(last) if self.at_eof() => Span::new(last.span.hi, last.span.hi),
            _ => self.span(),
        };
        self.error_at(span, format!("expected {what}, found {found}"));
    }

    /// Parses one item of a list (a statement, a declaration, a table
    /// property...) with `f`. If `f` reported an error and stopped short of
    /// the item's end, skips to that end; and it makes sure some token is
    /// consumed unless at the `}` closing the list, so list loops advance.
    fn list_item<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let errors = self.errors;
        let before = self.pos;
        let item = f(self);
        if self.errors > errors && !self.after_boundary() {
            self.recover();
        }
        if self.pos == before && !self.at(&TokenKind::RBrace) {
            self.bump();
        }
        item
    }

    /// True right after a `;` or `}`: a statement or declaration has ended.
    fn after_boundary(&self) -> bool {
        let prev = self.pos.checked_sub(1).and_then(|i| self.tokens.get(i));
        prev.is_some_and(|t| matches!(t.kind, TokenKind::Semi | TokenKind::RBrace))
    }

    /// Skips to the end of the current statement or declaration: past the
    /// next `;` or balanced `{...}` group, or up to a `}` closing the
    /// enclosing block, whichever comes first.
    fn recover(&mut self) {
        let mut depth = 0u32;
        while !self.at_eof() {
            match self.peek() {
                TokenKind::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::LBrace | TokenKind::LParen | TokenKind::LBracket => depth += 1,
                TokenKind::RBrace if depth == 0 => return,
                TokenKind::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                TokenKind::RParen | TokenKind::RBracket => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
    }

    // -- Guards ---------------------------------------------------------------

    /// Enters one level of nesting; false (after reporting once and ending
    /// the parse) when the input is nested too deeply.
    fn enter(&mut self) -> bool {
        if self.aborted {
            return false;
        }
        if self.depth >= MAX_DEPTH {
            self.error(format!("nesting too deep (more than {MAX_DEPTH} levels)"));
            self.abort();
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// True when the step limit tripped: some loop looked at tokens for
    /// too long without consuming one (a parser bug, reported by `abort`).
    fn stuck(&self) -> bool {
        self.steps.get() > MAX_STEPS_WITHOUT_PROGRESS
    }

    /// Ends the parse: jumps to the end so every loop finishes.
    fn abort(&mut self) {
        if self.stuck() && !self.aborted {
            let span = Span::new(self.prev_end, self.prev_end);
            self.error_at(span, "parser made no progress (internal error)".into());
        }
        self.aborted = true;
        self.steps.set(0);
        self.pos = self.tokens.len().saturating_sub(1);
    }

    fn program(&mut self) -> Vec<ast::Decl> {
        let mut decls = Vec::new();
        loop {
            if self.stuck() {
                self.abort();
            }
            if self.at_eof() || self.aborted {
                break;
            }
            let before = self.pos;
            if let Some(decl) = self.top_level_declaration() {
                decls.push(decl);
            }
            if self.pos == before {
                // A stray `}` (already reported): skip it.
                self.bump();
            }
        }
        decls
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests;
