//! Annotations: `@name`, `@name(...)`, `@name[...]` and the old
//! `@pragma name tokens...` form, which runs to the end of its line.
//!
//! An unstructured body `(...)` may hold any balanced tokens: it is read as
//! an expression list when it is one, and kept as an unparsed span without
//! any error otherwise.

use super::Parser;
use crate::ast::{Annotation, AnnotationBody, Expr, Ident};
use crate::lexer::TokenKind;
use crate::source::Span;

impl Parser<'_> {
    /// Any number of annotations.
    pub(super) fn annotations(&mut self) -> Vec<Annotation> {
        let mut list = Vec::new();
        while self.at(&TokenKind::At) && !self.at_eof() {
            list.push(self.annotation());
        }
        list
    }

    fn annotation(&mut self) -> Annotation {
        let start = self.span();
        self.bump();
        let Some(word) = self.peek().word().map(str::to_string) else {
            self.error_expected("an annotation name");
            let name = Ident {
                name: String::new(),
                span: self.span(),
            };
            return Annotation {
                name,
                body: AnnotationBody::Empty,
                span: start,
            };
        };
        let name = Ident {
            name: word,
            span: self.bump().span,
        };
        if name.name == "pragma" {
            return self.pragma(start);
        }
        let body = match self.peek() {
            TokenKind::LParen => self.unstructured_body(),
            TokenKind::LBracket => self.structured_body(),
            _ => AnnotationBody::Empty,
        };
        Annotation {
            name,
            body,
            span: self.span_from(start),
        }
    }

    /// `@pragma name rest-of-line`: the name is the annotation's name; a
    /// single literal becomes its argument, other bodies stay unparsed.
    fn pragma(&mut self, start: Span) -> Annotation {
        let name_token = self.token(0);
        let name = match self.peek().word() {
            Some(word) if !self.newline_before(0) => {
                let word = word.to_string();
                self.bump();
                Ident {
                    name: word,
                    span: name_token.span,
                }
            }
            _ => {
                self.error_expected("a pragma name");
                return Annotation {
                    name: Ident {
                        name: "pragma".into(),
                        span: start,
                    },
                    body: AnnotationBody::Empty,
                    span: start,
                };
            }
        };
        let body_start = self.span();
        let mut count = 0;
        while !self.at(&TokenKind::Eof) && !self.newline_before(0) {
            self.bump();
            count += 1;
        }
        let body = match count {
            0 => AnnotationBody::Empty,
            1 if matches!(
                self.nth_back(1),
                Some(TokenKind::Str(_) | TokenKind::Number(_))
            ) =>
            {
                self.pos -= 1;
                AnnotationBody::Expressions(vec![self.primary()])
            }
            _ => AnnotationBody::Unparsed(self.span_from(body_start)),
        };
        Annotation {
            name,
            body,
            span: self.span_from(start),
        }
    }

    /// The kind of the token `n` places behind the current one.
    fn nth_back(&self, n: usize) -> Option<&TokenKind> {
        self.pos
            .checked_sub(n)
            .and_then(|i| self.tokens.get(i))
            .map(|t| &t.kind)
    }

    /// Is there a line break between the token `n` ahead and the one before?
    fn newline_before(&self, n: usize) -> bool {
        let Some(prev) = (self.pos + n)
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
        else {
            return true;
        };
        let gap = Span::new(prev.span.hi, self.token(n).span.lo);
        self.unit.slice(gap).contains('\n')
    }

    /// `( ... )`: an expression list if it parses as one, else unparsed.
    fn unstructured_body(&mut self) -> AnnotationBody {
        let open = self.span();
        let Some(close) = self.matching_paren() else {
            self.error("unclosed `(` in annotation".into());
            return AnnotationBody::Empty;
        };
        let inner = Span::new(open.hi, self.token(close).span.lo);
        let saved = (
            self.pos,
            self.prev_end,
            self.next_expr,
            self.last_error_at,
            self.diags.list.len(),
            self.errors,
        );
        self.last_error_at = None;
        self.bump();
        let exprs = self.expr_list(&TokenKind::RParen);
        if self.diags.list.len() == saved.4 && self.pos == saved.0 + close {
            self.bump();
            return AnnotationBody::Expressions(exprs);
        }
        if self.aborted {
            return AnnotationBody::Unparsed(inner);
        }
        // Not an expression list: forget the attempt and skip the tokens.
        (self.pos, self.prev_end, self.next_expr, self.last_error_at) =
            (saved.0, saved.1, saved.2, saved.3);
        self.diags.list.truncate(saved.4);
        self.errors = saved.5;
        for _ in 0..=close {
            self.bump();
        }
        AnnotationBody::Unparsed(inner)
    }

    /// Offset of the `)` closing the `(` at the current token. Unlike
    /// `skip_group`, any token (even `;`) may appear inside.
    fn matching_paren(&self) -> Option<usize> {
        let mut depth = 0u32;
        let mut i = 0;
        loop {
            match self.nth(i) {
                TokenKind::LParen => depth += 1,
                TokenKind::RParen => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                TokenKind::Eof => return None,
                _ => {}
            }
            if i > super::MAX_STEPS_WITHOUT_PROGRESS as usize / 2 {
                return None;
            }
            i += 1;
        }
    }

    /// `[ k = v, ... ]` or `[ e1, e2 ]`.
    fn structured_body(&mut self) -> AnnotationBody {
        self.bump();
        if self.at_name() && self.nth(1) == &TokenKind::Assign {
            let mut pairs = Vec::new();
            while !self.at(&TokenKind::RBracket) && !self.at_eof() {
                let key = self.name();
                self.expect(&TokenKind::Assign);
                pairs.push((key, self.expr()));
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
            self.expect(&TokenKind::RBracket);
            return AnnotationBody::KeyValues(pairs);
        }
        let exprs = self.expr_list(&TokenKind::RBracket);
        self.expect(&TokenKind::RBracket);
        AnnotationBody::Expressions(exprs)
    }

    /// Comma-separated expressions up to (not including) `end`; a trailing
    /// comma is allowed.
    fn expr_list(&mut self, end: &TokenKind) -> Vec<Expr> {
        let mut exprs = Vec::new();
        while !self.at(end) && !self.at_eof() {
            exprs.push(self.expr());
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        exprs
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::parse_ok;
    use crate::ast::AnnotationBody;

    fn annotations_of(src: &str) -> Vec<(String, AnnotationBody)> {
        let program = parse_ok(src);
        let decl = program.decls.into_iter().next().expect("one declaration");
        decl.annotations
            .into_iter()
            .map(|a| (a.name.name, a.body))
            .collect()
    }

    #[test]
    fn bodies_parse_as_expressions_or_stay_unparsed() {
        let list = annotations_of(
            "@hidden @name(\"x.y\") @size(1 + 2) @weird(a b ; c) @kv[a = 1, b = \"s\"] @list[1, 2] const bit x = 1;",
        );
        assert!(matches!(list[0].1, AnnotationBody::Empty));
        assert!(matches!(&list[1].1, AnnotationBody::Expressions(e) if e.len() == 1));
        assert!(matches!(&list[2].1, AnnotationBody::Expressions(e) if e.len() == 1));
        assert!(matches!(list[3].1, AnnotationBody::Unparsed(_)));
        assert!(matches!(&list[4].1, AnnotationBody::KeyValues(kv) if kv.len() == 2));
        assert!(matches!(&list[5].1, AnnotationBody::Expressions(e) if e.len() == 2));
    }

    #[test]
    fn pragma_runs_to_end_of_line() {
        let list = annotations_of("@pragma name \"n\"\n@pragma size 1 2\nconst bit x = 1;");
        assert_eq!(list[0].0, "name");
        assert!(matches!(&list[0].1, AnnotationBody::Expressions(e) if e.len() == 1));
        assert_eq!(list[1].0, "size");
        assert!(matches!(list[1].1, AnnotationBody::Unparsed(_)));
    }
}
