//! Statements and blocks: assignments (also `op=`), calls, `if`, `switch`
//! with fall-through labels, both `for` forms, `return`, `exit`, `break`,
//! `continue`, and local declarations.
//!
//! A statement that went wrong is skipped up to its `;` (or the `}` closing
//! its block), so the next statement is parsed afresh.

use super::Parser;
use crate::ast::{Annotation, BinaryOp, Block, ExprKind, Stmt, StmtKind, SwitchCase, SwitchLabel};
use crate::lexer::TokenKind;

impl Parser<'_> {
    /// `{ statements }`, with the annotations already read before it.
    pub(super) fn block(&mut self, annotations: Vec<Annotation>) -> Block {
        let start = self.span();
        let mut stmts = Vec::new();
        self.names.push(&[]);
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                if let Some(stmt) = self.statement() {
                    stmts.push(stmt);
                }
            }
            self.expect(&TokenKind::RBrace);
        }
        self.names.pop();
        Block {
            annotations,
            stmts,
            span: self.span_from(start),
        }
    }

    /// One statement, recovering to its end if it has errors. `None` when
    /// nesting is too deep.
    pub(super) fn statement(&mut self) -> Option<Stmt> {
        if !self.enter() {
            return None;
        }
        let stmt = self.list_item(Self::statement_inner);
        self.leave();
        Some(stmt)
    }

    fn statement_inner(&mut self) -> Stmt {
        let start = self.span();
        let annotations = self.annotations();
        let kind = match self.peek() {
            TokenKind::LBrace => StmtKind::Block(self.block(annotations)),
            TokenKind::If => self.if_statement(),
            TokenKind::Switch => self.switch_statement(),
            TokenKind::For => self.for_statement(),
            TokenKind::Semi => {
                self.bump();
                StmtKind::Empty
            }
            TokenKind::Exit => self.keyword_statement(StmtKind::Exit),
            TokenKind::Break => self.keyword_statement(StmtKind::Break),
            TokenKind::Continue => self.keyword_statement(StmtKind::Continue),
            TokenKind::Return => {
                self.bump();
                let value = if self.at(&TokenKind::Semi) {
                    None
                } else {
                    Some(self.expr())
                };
                self.expect(&TokenKind::Semi);
                StmtKind::Return(value)
            }
            TokenKind::Const => StmtKind::Decl(Box::new(self.constant(annotations, start))),
            _ if self.at_local_declaration() => {
                StmtKind::Decl(Box::new(self.variable_or_instance(annotations, start)))
            }
            _ => {
                let kind = self.assignment_or_call();
                self.expect(&TokenKind::Semi);
                kind
            }
        };
        Stmt {
            kind,
            span: self.span_from(start),
        }
    }

    /// `exit;`, `break;` or `continue;`
    fn keyword_statement(&mut self, kind: StmtKind) -> StmtKind {
        self.bump();
        self.expect(&TokenKind::Semi);
        kind
    }

    /// `lhs = rhs`, `lhs op= rhs` or a call, without the `;`.
    fn assignment_or_call(&mut self) -> StmtKind {
        // Only a postfix expression can be assigned to or be a call; a
        // stray operator is reported where it stands.
        let lhs = self.postfix();
        if self.eat(&TokenKind::Assign) {
            let rhs = self.expr();
            return StmtKind::Assign { lhs, rhs };
        }
        if let Some(op) = self.compound_assign_op() {
            let rhs = self.expr();
            return StmtKind::CompoundAssign { op, lhs, rhs };
        }
        if matches!(lhs.kind, ExprKind::Call { .. }) {
            return StmtKind::Call(lhs);
        }
        if !matches!(lhs.kind, ExprKind::Error) {
            self.error_expected("`=` or a call");
        }
        StmtKind::Call(lhs)
    }

    /// Consumes `+=`, `>>=` (written `>` `>=`) and the like.
    fn compound_assign_op(&mut self) -> Option<BinaryOp> {
        use BinaryOp::*;
        if self.at(&TokenKind::Gt) && self.nth(1) == &TokenKind::Ge && self.adjacent(0) {
            self.bump();
            self.bump();
            return Some(Shr);
        }
        let TokenKind::OpAssign(op) = self.peek() else {
            return None;
        };
        let op = match **op {
            TokenKind::Plus => Add,
            TokenKind::Minus => Sub,
            TokenKind::Star => Mul,
            TokenKind::Slash => Div,
            TokenKind::Percent => Mod,
            TokenKind::Amp => BitAnd,
            TokenKind::Pipe => BitOr,
            TokenKind::Caret => BitXor,
            TokenKind::Shl => Shl,
            TokenKind::PipePlusPipe => AddSat,
            TokenKind::PipeMinusPipe => SubSat,
            _ => return None,
        };
        self.bump();
        Some(op)
    }

    fn if_statement(&mut self) -> StmtKind {
        self.bump();
        self.expect(&TokenKind::LParen);
        let cond = self.expr();
        self.expect(&TokenKind::RParen);
        let then = self.sub_statement();
        let other = if self.eat(&TokenKind::Else) {
            Some(Box::new(self.sub_statement()))
        } else {
            None
        };
        StmtKind::If {
            cond,
            then: Box::new(then),
            other,
        }
    }

    /// The body of an `if`, `else` or `for`: a statement, which the grammar
    /// distinguishes from a declaration (that needs a block around it).
    fn sub_statement(&mut self) -> Stmt {
        let span = self.span();
        let stmt = self.statement().unwrap_or(Stmt {
            kind: StmtKind::Empty,
            span,
        });
        if matches!(stmt.kind, StmtKind::Decl(_)) {
            self.error_at(
                stmt.span,
                "a declaration cannot be the body of `if`, `else` or `for`; put it in a block"
                    .into(),
            );
        }
        stmt
    }

    fn switch_statement(&mut self) -> StmtKind {
        self.bump();
        self.expect(&TokenKind::LParen);
        let expr = self.expr();
        self.expect(&TokenKind::RParen);
        let mut cases = Vec::new();
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                cases.push(self.list_item(Self::switch_case));
            }
            self.expect(&TokenKind::RBrace);
        }
        StmtKind::Switch { expr, cases }
    }

    /// `label: { ... }` or `label:` (falls through to the next case).
    fn switch_case(&mut self) -> SwitchCase {
        let start = self.span();
        let label = if self.at(&TokenKind::Default) && self.nth(1) == &TokenKind::Colon {
            SwitchLabel::Default(self.bump().span)
        } else {
            SwitchLabel::Expr(self.expr())
        };
        self.expect(&TokenKind::Colon);
        let body = if matches!(self.peek(), TokenKind::LBrace | TokenKind::At) {
            let annotations = self.annotations();
            Some(self.block(annotations))
        } else {
            None
        };
        SwitchCase {
            label,
            body,
            span: self.span_from(start),
        }
    }

    /// `for (init; cond; update) body` or `for (T x in e) body`.
    fn for_statement(&mut self) -> StmtKind {
        self.names.push(&[]);
        let kind = self.for_statement_inner();
        self.names.pop();
        kind
    }

    fn for_statement_inner(&mut self) -> StmtKind {
        self.bump();
        self.expect(&TokenKind::LParen);
        if let Some(typed) = self.at_for_in() {
            let ty = if typed { Some(self.type_ref()) } else { None };
            let var = self.name();
            self.names.declare_value(&var.name);
            self.expect(&TokenKind::In);
            // `lo .. hi` is read like a keyset range.
            let range = self.simple_keyset();
            self.expect(&TokenKind::RParen);
            let body = Box::new(self.sub_statement());
            return StmtKind::ForIn {
                ty,
                var,
                range,
                body,
            };
        }
        let init = self.for_clauses(&TokenKind::Semi);
        self.expect(&TokenKind::Semi);
        let cond = if self.at(&TokenKind::Semi) {
            None
        } else {
            Some(self.expr())
        };
        self.expect(&TokenKind::Semi);
        let update = self.for_clauses(&TokenKind::RParen);
        self.expect(&TokenKind::RParen);
        let body = Box::new(self.sub_statement());
        StmtKind::For {
            init,
            cond,
            update,
            body,
        }
    }

    /// After `for (`: `Some(has_type)` when a `for ... in` loop follows.
    fn at_for_in(&self) -> Option<bool> {
        if self.nth_is_name(0) && self.nth(1) == &TokenKind::In {
            return Some(false);
        }
        let after = self.skip_type(0)?;
        (self.nth_is_name(after) && self.nth(after + 1) == &TokenKind::In).then_some(true)
    }

    /// Comma-separated declarations, assignments or calls, up to `end`.
    fn for_clauses(&mut self, end: &TokenKind) -> Vec<crate::ast::Stmt> {
        let mut stmts = Vec::new();
        while !self.at(end) && !self.at_eof() {
            let start = self.span();
            let annotations = self.annotations();
            let kind = if self.at_local_declaration() {
                StmtKind::Decl(Box::new(self.for_variable(annotations, start)))
            } else {
                self.assignment_or_call()
            };
            stmts.push(Stmt {
                kind,
                span: self.span_from(start),
            });
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        stmts
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::{control_body, parse_str};
    use crate::ast::{BinaryOp, StmtKind, SwitchLabel};

    #[test]
    fn declarations_assignments_and_calls() {
        let stmts = control_body(
            "bit<8> x = 1; h_t[2] s; Ck() ck; x = 2; f(x); t.apply(); x += 1; x >>= 2;",
        );
        assert!(matches!(stmts[0].kind, StmtKind::Decl(_)));
        assert!(matches!(stmts[1].kind, StmtKind::Decl(_)));
        assert!(matches!(stmts[2].kind, StmtKind::Decl(_)));
        assert!(matches!(stmts[3].kind, StmtKind::Assign { .. }));
        assert!(matches!(stmts[4].kind, StmtKind::Call(_)));
        assert!(matches!(stmts[5].kind, StmtKind::Call(_)));
        assert!(matches!(
            stmts[6].kind,
            StmtKind::CompoundAssign {
                op: BinaryOp::Add,
                ..
            }
        ));
        assert!(matches!(
            stmts[7].kind,
            StmtKind::CompoundAssign {
                op: BinaryOp::Shr,
                ..
            }
        ));
    }

    #[test]
    fn switch_with_fall_through_and_default() {
        let stmts =
            control_body("switch (t.apply().action_run) { a: b: @likely { x = 1; } default: { } }");
        let StmtKind::Switch { cases, .. } = &stmts[0].kind else {
            panic!("{:?}", stmts[0])
        };
        assert_eq!(cases.len(), 3);
        assert!(cases[0].body.is_none());
        assert!(cases[1].body.is_some());
        assert!(matches!(cases[2].label, SwitchLabel::Default(_)));
    }

    #[test]
    fn both_for_forms() {
        let stmts = control_body(
            "for (bit<8> i = 0, j = 1; i < 4; i = i + 1, j = j + 1) { } for (bit<8> v in l) { } for (v in 1 .. 3) ;",
        );
        let StmtKind::For {
            init, update, cond, ..
        } = &stmts[0].kind
        else {
            panic!("{:?}", stmts[0])
        };
        assert_eq!((init.len(), update.len(), cond.is_some()), (2, 2, true));
        assert!(matches!(
            &stmts[1].kind,
            StmtKind::ForIn { ty: Some(_), .. }
        ));
        assert!(matches!(&stmts[2].kind, StmtKind::ForIn { ty: None, .. }));
    }

    #[test]
    fn if_else_chain() {
        let stmts = control_body("if (a) x = 1; else if (b) { } else ;");
        let StmtKind::If {
            other: Some(other), ..
        } = &stmts[0].kind
        else {
            panic!()
        };
        assert!(matches!(other.kind, StmtKind::If { .. }));
    }

    #[test]
    fn several_errors_are_reported_and_parsing_continues() {
        let src = "control c() { apply { x = ; y == 1; z = 3; w = (1; } }";
        let (_, diags) = parse_str(src);
        let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert_eq!(messages[0], "expected an expression, found `;`");
        assert_eq!(messages[1], "expected `=` or a call, found `==`");
        assert_eq!(messages[2], "expected `)`, found `;`");
    }
}
