//! Lookahead that scans tokens without consuming them, to settle P4's
//! ambiguities before committing: is `a b` a declaration, `(x) y` a cast,
//! `f<T>(...)` a generic call or a comparison? Scans follow the grammar's
//! shapes (a type, a balanced group) and never cross a `;`; each scan also
//! has a length bound, so that scans repeated at every token (as for `<`)
//! cannot make parsing quadratic.

use super::Parser;
use crate::lexer::TokenKind;

/// Longest bracketed group a scan looks through (a big initializer in an
/// instantiation's arguments can be long).
const MAX_GROUP_SCAN: usize = 50_000;

/// Longest type-argument list a scan looks through.
const MAX_TYPE_ARGS_SCAN: usize = 512;

impl Parser<'_> {
    /// Offset just past the group opened at offset `n` (`(`, `[` or `{`),
    /// or `None` if it is not closed before the end of the statement.
    pub(super) fn skip_group(&self, n: usize) -> Option<usize> {
        let mut depth = 0u32;
        let mut i = n;
        loop {
            match self.nth(i) {
                TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => depth += 1,
                TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                TokenKind::Semi | TokenKind::Eof => return None,
                _ => {}
            }
            if i - n > MAX_GROUP_SCAN {
                return None;
            }
            i += 1;
        }
    }

    /// Offset just past a type-argument list `<...>` opened at offset `n`,
    /// if the tokens up to its `>` can form one.
    pub(super) fn skip_type_args(&self, n: usize) -> Option<usize> {
        let mut depth = 0u32;
        let mut i = n;
        loop {
            match self.nth(i) {
                TokenKind::Lt => depth += 1,
                TokenKind::Gt => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                TokenKind::LParen | TokenKind::LBracket => {
                    i = self.skip_group(i)?;
                    continue;
                }
                TokenKind::Comma
                | TokenKind::Dot
                | TokenKind::Number(_)
                | TokenKind::Underscore
                | TokenKind::Bit
                | TokenKind::Int
                | TokenKind::Varbit
                | TokenKind::Bool
                | TokenKind::String
                | TokenKind::Error
                | TokenKind::Void
                | TokenKind::Tuple
                | TokenKind::MatchKind => {}
                kind if Self::name_text(kind).is_some() => {}
                _ => return None,
            }
            if i - n > MAX_TYPE_ARGS_SCAN {
                return None;
            }
            i += 1;
        }
    }

    /// Offset just past a type written at offset `n`, if one is there.
    pub(super) fn skip_type(&self, n: usize) -> Option<usize> {
        let mut i = n;
        if self.nth(i) == &TokenKind::Dot {
            i += 1;
        }
        match self.nth(i) {
            TokenKind::Bool
            | TokenKind::String
            | TokenKind::Error
            | TokenKind::MatchKind
            | TokenKind::Void
            | TokenKind::Int
            | TokenKind::Bit
            | TokenKind::Varbit
            | TokenKind::Tuple => i += 1,
            kind if Self::name_text(kind).is_some() => i += 1,
            _ => return None,
        }
        if self.nth(i) == &TokenKind::Lt {
            i = self.skip_type_args(i)?;
        }
        while self.nth(i) == &TokenKind::LBracket {
            i = self.skip_group(i)?;
        }
        Some(i)
    }

    /// At the start of a statement: does a declaration (`T x`, `T(args) x`)
    /// start here rather than an assignment or a call?
    pub(super) fn at_local_declaration(&self) -> bool {
        let Some(mut i) = self.skip_type(0) else {
            return false;
        };
        if self.nth(i) == &TokenKind::LParen {
            match self.skip_group(i) {
                Some(after) => i = after,
                None => return false,
            }
        }
        self.nth_is_name(i)
    }

    /// At `(`: does a cast `(T) e` start here? Known type names decide; an
    /// unknown name in parentheses counts as a type when an expression
    /// follows that could not continue a parenthesised one, as in `(T) x`.
    pub(super) fn at_cast(&self) -> bool {
        match self.nth(1) {
            TokenKind::Bit
            | TokenKind::Int
            | TokenKind::Varbit
            | TokenKind::Bool
            | TokenKind::String
            | TokenKind::MatchKind
            | TokenKind::Tuple => return true,
            TokenKind::List if self.nth(2) == &TokenKind::Lt => return true,
            TokenKind::Ident(_) => {}
            _ => return false,
        }
        let Some(after) = self.skip_type(1) else {
            return false;
        };
        if self.nth(after) != &TokenKind::RParen {
            return false;
        }
        if let TokenKind::Ident(name) = self.nth(1) {
            if self.names.is_type(name) {
                return true;
            }
        }
        matches!(
            self.nth(after + 1),
            TokenKind::Ident(_)
                | TokenKind::Number(_)
                | TokenKind::Str(_)
                | TokenKind::LParen
                | TokenKind::LBrace
                | TokenKind::Bang
                | TokenKind::Tilde
                | TokenKind::True
                | TokenKind::False
                | TokenKind::This
        )
    }

    /// At `<` after a name in an expression: does a type-argument list
    /// start here (`f<T>(x)`) rather than a comparison?
    pub(super) fn at_type_args(&self) -> bool {
        let type_keyword = matches!(
            self.nth(1),
            TokenKind::Bit
                | TokenKind::Int
                | TokenKind::Varbit
                | TokenKind::Bool
                | TokenKind::String
                | TokenKind::Tuple
                | TokenKind::Void
        );
        // `a < bit...` cannot be a comparison; otherwise the list must be
        // followed by the call's `(`.
        type_keyword
            || self
                .skip_type_args(0)
                .is_some_and(|after| self.nth(after) == &TokenKind::LParen)
    }
}
