//! Structural rules of P4_16 that need no types and no name resolution
//! across scopes, checked on the AST before typing: duplicate names,
//! parser states and transitions, statement placement, switch labels, table
//! properties and entries, parameter directions and annotation shapes.
//!
//! Rules: every check here is one the language specification (or the
//! reference compiler's front end) states without needing a type. Names are
//! looked up only by their spelling, in the declaration being checked or
//! among the top-level declarations (actions, externs, functions); anything
//! that needs real name resolution belongs to the type checker. Each rule
//! reports at the offending construct and carries on, so one run reports
//! many mistakes. No rule may reject a valid program: when in doubt, stay
//! silent.

mod abstracts;
mod annotations;
mod control_plane;
mod declarations;
mod names;
mod params;
mod parsers;
mod recursion;
mod self_reference;
mod shadowing;
mod statements;
mod switches;
mod tables;
mod walk;

use crate::ast::Program;
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::{Span, TranslationUnit};

pub(super) use control_plane::name_annotation;

pub fn check_rules(program: &Program, unit: &TranslationUnit, diags: &mut Diagnostics) {
    let mut r = Reporter { unit, diags };
    names::check(program, &mut r);
    control_plane::check(program, &mut r);
    shadowing::check(program, &mut r);
    declarations::check(program, &mut r);
    params::check(program, &mut r);
    parsers::check(program, &mut r);
    statements::check(program, &mut r);
    tables::check(program, &mut r);
    annotations::check(program, &mut r);
    abstracts::check(program, &mut r);
    recursion::check(program, &mut r);
    self_reference::check(program, &mut r);
}

/// Where the rules report: resolves spans to source locations.
pub(super) struct Reporter<'a> {
    unit: &'a TranslationUnit,
    diags: &'a mut Diagnostics,
}

impl Reporter<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        let loc = self.unit.resolve(span);
        self.diags.error(loc, message);
    }

    fn warning(&mut self, span: Span, message: impl Into<String>) {
        let loc = self.unit.resolve(span);
        self.diags.warning(loc, message);
    }

    /// An error with a note pointing at a related place, e.g. the first
    /// declaration of a duplicated name.
    fn error_with_note(&mut self, span: Span, message: impl Into<String>, at: Span, note: &str) {
        let d = Diagnostic::error(self.unit.resolve(span), message)
            .with_note(self.unit.resolve(at), note);
        self.diags.push(d);
    }

    /// The program text a span covers, e.g. to tell `@a[...]` from `@a(...)`.
    fn text(&self, span: Span) -> &str {
        self.unit.slice(span)
    }
}

#[cfg(test)]
mod tests;
