//! Conditional inclusion: `#if`, `#ifdef`, `#ifndef`, `#elif`,
//! `#elifdef`, `#elifndef`, `#else`, `#endif`.
//!
//! Rules: each file keeps its own stack of open conditionals; inside a group
//! that is skipped, conditions are not evaluated (so their errors are not
//! reported) but nesting is still tracked. `defined X` and `defined(X)` are
//! replaced before macros in the expression are expanded, and again after
//! for the ones macros produce.

use super::expand::{Expander, NoMoreTokens};
use super::macros::Token;
use super::scan::{LexKind, Lexeme};
use super::{expr, FileState, Preprocessor};
use crate::diag::Diagnostic;
use crate::source::SrcLoc;

/// One open `#if` ... `#endif`.
pub struct Condition {
    /// The directive that opened it, for "without matching `#endif`".
    pub directive: &'static str,
    pub loc: SrcLoc,
    /// Lines of the current group are kept.
    pub active: bool,
    /// Some group of this conditional was (or is being) kept.
    taken: bool,
    /// The conditional itself is inside kept text.
    enclosing_active: bool,
    /// Where `#else` appeared, if it did.
    else_at: Option<SrcLoc>,
}

impl Preprocessor<'_> {
    /// Handles the conditional `directive` found at `loc`; `rest` are the
    /// tokens after its name.
    pub(super) fn conditional(
        &mut self,
        file: &mut FileState,
        directive: &'static str,
        loc: SrcLoc,
        rest: &[(Lexeme, Token)],
    ) {
        match directive {
            "if" | "ifdef" | "ifndef" => {
                let enclosing_active = file.active();
                let value = enclosing_active && self.condition_holds(file, directive, loc, rest);
                file.conditions.push(Condition {
                    directive,
                    loc,
                    active: value,
                    taken: value,
                    enclosing_active,
                    else_at: None,
                });
            }
            "elif" | "elifdef" | "elifndef" => {
                let Some(open) = file.conditions.last() else {
                    return self.error(loc, format!("`#{directive}` without `#if`"));
                };
                if let Some(else_at) = open.else_at {
                    let d = Diagnostic::error(Some(loc), format!("`#{directive}` after `#else`"))
                        .with_note(Some(else_at), "`#else` is here");
                    return self.report(d);
                }
                let evaluate = open.enclosing_active && !open.taken;
                let value = evaluate && self.condition_holds(file, directive, loc, rest);
                if let Some(open) = file.conditions.last_mut() {
                    open.active = value;
                    open.taken |= value;
                }
            }
            "else" => {
                self.no_extra_tokens(directive, rest, file);
                let Some(open) = file.conditions.last_mut() else {
                    return self.error(loc, "`#else` without `#if`");
                };
                if let Some(else_at) = open.else_at {
                    let d = Diagnostic::error(Some(loc), "`#else` after `#else`")
                        .with_note(Some(else_at), "first `#else` is here");
                    return self.report(d);
                }
                open.active = open.enclosing_active && !open.taken;
                open.taken = true;
                open.else_at = Some(loc);
            }
            _ => {
                self.no_extra_tokens(directive, rest, file);
                if file.conditions.pop().is_none() {
                    self.error(loc, "`#endif` without `#if`");
                }
            }
        }
    }

    fn no_extra_tokens(&mut self, directive: &str, rest: &[(Lexeme, Token)], file: &FileState) {
        if let (Some((first, _)), Some((last, _))) = (rest.first(), rest.last()) {
            if file.active() {
                self.warning(
                    file.loc(first.lo, last.hi),
                    format!("extra tokens after `#{directive}`"),
                );
            }
        }
    }

    /// Whether the condition of an `#if`/`#ifdef`/... holds; errors count
    /// as false.
    fn condition_holds(
        &mut self,
        file: &FileState,
        directive: &str,
        loc: SrcLoc,
        rest: &[(Lexeme, Token)],
    ) -> bool {
        if directive.ends_with("def") {
            let Some((_, name)) = rest.first().filter(|(_, t)| t.kind == LexKind::Ident) else {
                self.error(loc, format!("`#{directive}` needs a macro name"));
                return false;
            };
            if let (Some((extra, _)), Some((last, _))) = (rest.get(1), rest.last()) {
                self.warning(
                    file.loc(extra.lo, last.hi),
                    format!("extra tokens after `#{directive} {}`", name.text),
                );
            }
            let wanted = !directive.ends_with("ndef");
            return self.macros.is_defined(&name.text) == wanted;
        }
        let span = match (rest.first(), rest.last()) {
            (Some((first, _)), Some((last, _))) => file.loc(first.lo, last.hi),
            _ => loc,
        };
        match self.evaluate(rest) {
            Ok(value) => value != 0,
            Err(message) => {
                self.error(span, message);
                false
            }
        }
    }

    /// Replaces `defined`, expands macros and evaluates. `defined` is
    /// replaced again after expansion, for macros that expand to it.
    fn evaluate(&mut self, rest: &[(Lexeme, Token)]) -> Result<i64, String> {
        let tokens = self.replace_defined(rest.iter().map(|(_, t)| t))?;
        let mut expander = Expander::for_condition(&self.macros, &mut self.budget);
        let expanded = expander.expand(tokens, &mut NoMoreTokens);
        if let Some(error) = expander.errors.into_iter().next() {
            return Err(error);
        }
        expr::evaluate(&self.replace_defined(expanded.iter())?)
    }

    /// Replaces `defined NAME` and `defined(NAME)` by `1` or `0`.
    fn replace_defined<'t>(
        &self,
        tokens: impl Iterator<Item = &'t Token>,
    ) -> Result<Vec<Token>, String> {
        let mut out = Vec::new();
        let mut tokens = tokens.peekable();
        while let Some(token) = tokens.next() {
            if token.kind != LexKind::Ident || &*token.text != "defined" {
                out.push(token.clone());
                continue;
            }
            let name = match tokens.next() {
                Some(t) if t.is("(") => {
                    let name = tokens.next().filter(|t| t.kind == LexKind::Ident);
                    if !tokens.next().is_some_and(|t| t.is(")")) {
                        return Err("expected `)` after `defined(NAME`".into());
                    }
                    name
                }
                Some(t) if t.kind == LexKind::Ident => Some(t),
                _ => None,
            };
            let Some(name) = name else {
                return Err("`defined` needs a macro name".into());
            };
            let value = if self.macros.is_defined(&name.text) {
                "1"
            } else {
                "0"
            };
            out.push(Token {
                kind: LexKind::Number,
                text: value.into(),
                ..token.clone()
            });
        }
        Ok(out)
    }
}
