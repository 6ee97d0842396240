//! Keysets: what a `select` case or a table entry matches against.
//!
//! A keyset is `default`, `_`, an expression, `value &&& mask`, `lo .. hi`,
//! or a parenthesised tuple of those, `(k1, k2)`, which becomes an
//! [`ExprKind::List`]. A parenthesised single keyset is just that keyset.

use super::Parser;
use crate::ast::{Expr, ExprKind};
use crate::lexer::TokenKind;

impl Parser<'_> {
    /// One keyset, possibly a tuple.
    pub(super) fn keyset(&mut self) -> Expr {
        if !(self.at(&TokenKind::LParen) && self.at_tuple_keyset()) {
            return self.simple_keyset();
        }
        let start = self.span();
        self.bump();
        let mut items = Vec::new();
        while !self.at(&TokenKind::RParen) && !self.at_eof() {
            items.push(self.simple_keyset());
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RParen);
        if items.len() == 1 {
            if let Some(only) = items.pop() {
                return only;
            }
        }
        self.new_expr(ExprKind::List(items), self.span_from(start))
    }

    /// `e`, `e &&& mask`, `lo .. hi`, `default` or `_`.
    pub(super) fn simple_keyset(&mut self) -> Expr {
        let start = self.span();
        let value = self.expr();
        if self.eat(&TokenKind::AmpAmpAmp) {
            let mask = self.expr();
            let kind = ExprKind::Mask {
                value: Box::new(value),
                mask: Box::new(mask),
            };
            return self.new_expr(kind, self.span_from(start));
        }
        if self.eat(&TokenKind::DotDot) {
            let hi = self.expr();
            let kind = ExprKind::Range {
                lo: Box::new(value),
                hi: Box::new(hi),
            };
            return self.new_expr(kind, self.span_from(start));
        }
        value
    }

    /// At `(`: does the group hold a tuple of keysets (a top-level `,`) or a
    /// mask or range, rather than a parenthesised expression?
    fn at_tuple_keyset(&self) -> bool {
        let mut depth = 0u32;
        let mut i = 0;
        loop {
            match self.nth(i) {
                TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => depth += 1,
                TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return false;
                    }
                }
                TokenKind::Comma | TokenKind::AmpAmpAmp | TokenKind::DotDot if depth == 1 => {
                    return true
                }
                TokenKind::Semi | TokenKind::Eof => return false,
                _ => {}
            }
            if i > super::MAX_STEPS_WITHOUT_PROGRESS as usize / 2 {
                return false;
            }
            i += 1;
        }
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::parse_ok;
    use crate::ast::{DeclKind, ExprKind, Transition};

    fn select_keysets(cases: &str) -> Vec<ExprKind> {
        let src =
            format!("parser p() {{ state start {{ transition select(a, b) {{ {cases} }} }} }}");
        let program = parse_ok(&src);
        let Some(DeclKind::Parser { states, .. }) =
            program.decls.into_iter().next().map(|d| d.kind)
        else {
            panic!("no parser")
        };
        match states.into_iter().next().and_then(|s| s.transition) {
            Some(Transition::Select { cases, .. }) => {
                cases.into_iter().map(|c| c.keyset.kind).collect()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tuples_masks_ranges_and_defaults() {
        let keysets = select_keysets(
            "(1, _): a; (0x800 &&& 0xF00, 1 .. 5): b; (default): c; default: accept; (x): d;",
        );
        assert!(
            matches!(&keysets[0], ExprKind::List(items) if matches!(items[1].kind, ExprKind::DontCare))
        );
        match &keysets[1] {
            ExprKind::List(items) => {
                assert!(matches!(items[0].kind, ExprKind::Mask { .. }));
                assert!(matches!(items[1].kind, ExprKind::Range { .. }));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(keysets[2], ExprKind::Default));
        assert!(matches!(keysets[3], ExprKind::Default));
        assert!(matches!(keysets[4], ExprKind::Path(_)));
    }

    #[test]
    fn parenthesised_expression_is_not_a_tuple() {
        let keysets = select_keysets("(a + 1) &&& 3: x;");
        assert!(matches!(keysets[0], ExprKind::Mask { .. }));
    }
}
