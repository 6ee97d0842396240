//! Expressions, by Pratt parsing with P4's precedence table (tightest
//! last): `?:`, `||`, `&&`, `==` `!=`, `<` `>` `<=` `>=`, `|`, `^`, `&`,
//! `<<` `>>`, `++` `+` `-` `|+|` `|-|`, `*` `/` `%`, prefix `!` `~` `-` `+`
//! and casts, then postfix member, index, slice and call. Note that, unlike
//! C, the bitwise operators bind tighter than comparisons.
//!
//! `>>` is two adjacent `>` tokens (see the lexer); `(T) e` and `f<T>(...)`
//! are told from a parenthesised expression and a comparison by `lookahead`.

use super::Parser;
use crate::ast::{Argument, BinaryOp, Expr, ExprKind, Ident, Path, TypeRef, TypeRefKind, UnaryOp};
use crate::lexer::TokenKind;

/// Binding power of the ternary operator, the loosest.
const TERNARY_BP: u8 = 1;
/// Binding power of `<`, `>`, `<=`, `>=`.
const COMPARISON_BP: u8 = 5;
/// Binding power of `+`, `-`, `++`, `|+|`, `|-|`.
const ADDITIVE_BP: u8 = 10;
/// Binding power of prefix operators and casts.
const PREFIX_BP: u8 = 12;

impl Parser<'_> {
    /// A whole expression.
    pub(super) fn expr(&mut self) -> Expr {
        self.expr_bp(0)
    }

    /// The width in `bit<W + 1>`: any expression, but a `>` not nested in
    /// brackets closes the list (so does the first `>` of `>>`).
    pub(super) fn width_expr(&mut self) -> Expr {
        let outer = std::mem::replace(&mut self.in_width, true);
        let e = self.expr();
        self.in_width = outer;
        e
    }

    /// Runs `f` inside brackets, where `>` compares again.
    fn bracketed<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.in_width, false);
        let result = f(self);
        self.in_width = outer;
        result
    }

    /// An expression whose operators all bind at least as tightly as `min_bp`.
    fn expr_bp(&mut self, min_bp: u8) -> Expr {
        if !self.enter() {
            return self.error_expr();
        }
        let start = self.span();
        let mut lhs = self.prefix();
        // Each operator applied makes the tree one level deeper, and later
        // stages walk (and drop) trees recursively: count it as nesting.
        let mut levels = 1;
        loop {
            if self.at(&TokenKind::Question) || self.binary_op().is_some() {
                if !self.enter() {
                    break;
                }
                levels += 1;
            }
            if self.at(&TokenKind::Question) && TERNARY_BP >= min_bp {
                self.bump();
                let then = self.expr();
                self.expect(&TokenKind::Colon);
                let other = self.expr_bp(TERNARY_BP);
                let kind = ExprKind::Ternary {
                    cond: Box::new(lhs),
                    then: Box::new(then),
                    other: Box::new(other),
                };
                lhs = self.new_expr(kind, self.span_from(start));
                continue;
            }
            let Some((op, bp, tokens)) = self.binary_op() else {
                break;
            };
            if bp < min_bp {
                break;
            }
            for _ in 0..tokens {
                self.bump();
            }
            let rhs = self.expr_bp(bp + 1);
            let kind = ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            };
            lhs = self.new_expr(kind, self.span_from(start));
        }
        for _ in 0..levels {
            self.leave();
        }
        lhs
    }

    /// The binary operator at the current token: its binding power and how
    /// many tokens it takes (two for `>>`).
    fn binary_op(&self) -> Option<(BinaryOp, u8, usize)> {
        use BinaryOp::*;
        if self.in_width && matches!(self.peek(), TokenKind::Gt | TokenKind::Ge) {
            return None;
        }
        Some(match self.peek() {
            TokenKind::PipePipe => (Or, 2, 1),
            TokenKind::AmpAmp => (And, 3, 1),
            TokenKind::Eq => (Eq, 4, 1),
            TokenKind::Ne => (Ne, 4, 1),
            TokenKind::Gt if self.nth(1) == &TokenKind::Gt && self.adjacent(0) => (Shr, 9, 2),
            // `>>=` ends the expression: the statement parser reads it.
            TokenKind::Gt if self.nth(1) == &TokenKind::Ge && self.adjacent(0) => return None,
            TokenKind::Lt => (Lt, COMPARISON_BP, 1),
            TokenKind::Gt => (Gt, COMPARISON_BP, 1),
            TokenKind::Le => (Le, COMPARISON_BP, 1),
            TokenKind::Ge => (Ge, COMPARISON_BP, 1),
            TokenKind::Pipe => (BitOr, 6, 1),
            TokenKind::Caret => (BitXor, 7, 1),
            TokenKind::Amp => (BitAnd, 8, 1),
            TokenKind::Shl => (Shl, 9, 1),
            TokenKind::PlusPlus => (Concat, ADDITIVE_BP, 1),
            TokenKind::Plus => (Add, ADDITIVE_BP, 1),
            TokenKind::Minus => (Sub, ADDITIVE_BP, 1),
            TokenKind::PipePlusPipe => (AddSat, ADDITIVE_BP, 1),
            TokenKind::PipeMinusPipe => (SubSat, ADDITIVE_BP, 1),
            TokenKind::Star => (Mul, 11, 1),
            TokenKind::Slash => (Div, 11, 1),
            TokenKind::Percent => (Mod, 11, 1),
            _ => return None,
        })
    }

    /// A prefix operator or cast applied to an operand, or a postfix
    /// expression.
    fn prefix(&mut self) -> Expr {
        let start = self.span();
        let op = match self.peek() {
            TokenKind::Bang => Some(UnaryOp::Not),
            TokenKind::Tilde => Some(UnaryOp::Complement),
            TokenKind::Minus => Some(UnaryOp::Neg),
            TokenKind::Plus => Some(UnaryOp::Plus),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let operand = self.expr_bp(PREFIX_BP);
            return self.new_expr(
                ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                },
                self.span_from(start),
            );
        }
        if self.at(&TokenKind::LParen) && self.at_cast() && self.enter() {
            self.bump();
            let ty = self.type_ref();
            self.expect(&TokenKind::RParen);
            let expr = self.expr_bp(PREFIX_BP);
            self.leave();
            return self.new_expr(
                ExprKind::Cast {
                    ty,
                    expr: Box::new(expr),
                },
                self.span_from(start),
            );
        }
        self.postfix()
    }

    /// A primary expression followed by any member accesses, indexing,
    /// slices and calls.
    pub(super) fn postfix(&mut self) -> Expr {
        let start = self.span();
        let mut e = self.primary();
        let mut levels = 0;
        loop {
            let postfix_follows = matches!(
                self.peek(),
                TokenKind::Dot | TokenKind::LBracket | TokenKind::LParen | TokenKind::Lt
            );
            if postfix_follows {
                if !self.enter() {
                    break;
                }
                levels += 1;
            }
            match self.peek() {
                TokenKind::Dot => {
                    self.bump();
                    let member = self.name();
                    e = self.new_expr(
                        ExprKind::Member {
                            base: Box::new(e),
                            member,
                        },
                        self.span_from(start),
                    );
                }
                TokenKind::LBracket => {
                    self.bump();
                    let index = self.bracketed(Self::expr);
                    let kind = if self.eat(&TokenKind::Colon) {
                        let lo = self.bracketed(Self::expr);
                        ExprKind::Slice {
                            base: Box::new(e),
                            hi: Box::new(index),
                            lo: Box::new(lo),
                        }
                    } else if self.eat(&TokenKind::PlusColon) {
                        let width = self.bracketed(Self::expr);
                        ExprKind::IndexedSlice {
                            base: Box::new(e),
                            lo: Box::new(index),
                            width: Box::new(width),
                        }
                    } else {
                        ExprKind::Index {
                            base: Box::new(e),
                            index: Box::new(index),
                        }
                    };
                    self.expect(&TokenKind::RBracket);
                    e = self.new_expr(kind, self.span_from(start));
                }
                TokenKind::LParen => {
                    let args = self.args();
                    let kind = ExprKind::Call {
                        callee: Box::new(e),
                        type_args: Vec::new(),
                        args,
                    };
                    e = self.new_expr(kind, self.span_from(start));
                }
                TokenKind::Lt if self.at_type_args() => {
                    let type_args = self.type_args();
                    e = self.specialize(e, type_args, start);
                }
                _ => break,
            }
        }
        for _ in 0..levels {
            self.leave();
        }
        e
    }

    /// `e<T...>` followed by a call, or a generic type used as a value
    /// (`Reg<bit<8>>.method`).
    fn specialize(&mut self, e: Expr, type_args: Vec<TypeRef>, start: crate::source::Span) -> Expr {
        if self.at(&TokenKind::LParen) {
            let args = self.args();
            let kind = ExprKind::Call {
                callee: Box::new(e),
                type_args,
                args,
            };
            return self.new_expr(kind, self.span_from(start));
        }
        match e.kind {
            ExprKind::Path(path) => {
                let ty = TypeRef {
                    kind: TypeRefKind::Named {
                        path,
                        args: type_args,
                    },
                    span: self.span_from(start),
                };
                self.new_expr(ExprKind::Type(ty), self.span_from(start))
            }
            _ => {
                self.error_expected("`(`");
                e
            }
        }
    }

    /// A literal, name, parenthesised expression, list or initializer.
    pub(super) fn primary(&mut self) -> Expr {
        let start = self.span();
        let kind = match self.peek() {
            TokenKind::Number(lit) => {
                self.bump();
                ExprKind::Int(lit.clone())
            }
            TokenKind::Str(text) => {
                self.bump();
                ExprKind::String(text.clone())
            }
            TokenKind::True => self.bumped(ExprKind::Bool(true)),
            TokenKind::False => self.bumped(ExprKind::Bool(false)),
            TokenKind::This => self.bumped(ExprKind::This),
            TokenKind::Underscore => self.bumped(ExprKind::DontCare),
            TokenKind::Default => self.bumped(ExprKind::Default),
            TokenKind::DotDotDot => self.bumped(ExprKind::DefaultValue),
            // Brackets count as a level of their own: parsing what is
            // inside takes several stack frames.
            TokenKind::LParen if self.enter() => {
                self.bump();
                let inner = self.bracketed(Self::expr);
                self.expect(&TokenKind::RParen);
                self.leave();
                return inner;
            }
            TokenKind::LBrace if self.enter() => {
                let e = self.bracketed(Self::braced);
                self.leave();
                return e;
            }
            TokenKind::LParen | TokenKind::LBrace => ExprKind::Error,
            TokenKind::Dot => {
                self.bump();
                let name = self.name();
                ExprKind::Path(Path {
                    top_level: true,
                    name,
                    span: self.span_from(start),
                })
            }
            TokenKind::Error if self.nth(1) == &TokenKind::Dot => {
                self.bump();
                ExprKind::Type(TypeRef {
                    kind: TypeRefKind::Error,
                    span: start,
                })
            }
            TokenKind::Bit
            | TokenKind::Int
            | TokenKind::Varbit
            | TokenKind::Bool
            | TokenKind::String
            | TokenKind::Tuple
            | TokenKind::MatchKind
            | TokenKind::Error => ExprKind::Type(self.type_ref()),
            _ if self.at_name() => {
                let name = self.name();
                self.check_type_name_use(&name);
                ExprKind::Path(Path {
                    top_level: false,
                    span: name.span,
                    name,
                })
            }
            _ => {
                self.error_expected("an expression");
                ExprKind::Error
            }
        };
        self.new_expr(kind, self.span_from(start))
    }

    /// A type name stands in an expression only as a constructor or
    /// generic callee, or before a member (`E.A`, `T.minSizeInBits()`), as
    /// in the grammar; `x > T` is a syntax error.
    fn check_type_name_use(&mut self, name: &crate::ast::Ident) {
        if self.names.is_type(&name.name)
            && !matches!(
                self.peek(),
                TokenKind::LParen | TokenKind::Dot | TokenKind::Lt
            )
        {
            let found = self.peek().describe();
            self.error(format!(
                "expected `(` or `.` after type `{}`, found {found}",
                name.name
            ));
        }
    }

    fn bumped(&mut self, kind: ExprKind) -> ExprKind {
        self.bump();
        kind
    }

    /// `{#}`, `{ a, b }`, `{ f = a, g = b }`, `{ f = a, ... }`.
    fn braced(&mut self) -> Expr {
        let start = self.span();
        self.bump();
        if self.at(&TokenKind::Hash) && self.nth(1) == &TokenKind::RBrace {
            self.bump();
            self.bump();
            return self.new_expr(ExprKind::Invalid, self.span_from(start));
        }
        let is_struct =
            (self.at_name() && self.nth(1) == &TokenKind::Assign) || self.at(&TokenKind::DotDotDot);
        let kind = if is_struct {
            let mut fields: Vec<(Ident, Expr)> = Vec::new();
            let mut rest = false;
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                if self.eat(&TokenKind::DotDotDot) {
                    rest = true;
                    break;
                }
                let name = self.name();
                self.expect(&TokenKind::Assign);
                fields.push((name, self.expr()));
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
            ExprKind::StructInit {
                ty: None,
                fields,
                rest,
            }
        } else {
            let mut items = Vec::new();
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                items.push(self.expr());
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
            ExprKind::List(items)
        };
        self.expect(&TokenKind::RBrace);
        self.new_expr(kind, self.span_from(start))
    }

    /// `(a, name = b, _)`: the arguments of a call or instantiation.
    pub(super) fn args(&mut self) -> Vec<Argument> {
        self.bracketed(Self::args_inside)
    }

    fn args_inside(&mut self) -> Vec<Argument> {
        let mut args = Vec::new();
        self.expect(&TokenKind::LParen);
        while !self.at(&TokenKind::RParen) && !self.at_eof() {
            let start = self.span();
            let name = if self.at_name() && self.nth(1) == &TokenKind::Assign {
                let name = self.name();
                self.bump();
                Some(name)
            } else {
                None
            };
            let value = self.expr();
            args.push(Argument {
                name,
                value,
                span: self.span_from(start),
            });
            if !self.eat(&TokenKind::Comma) {
                break;
            }
            // Unlike lists and enums, argument lists take no trailing comma.
            if self.at(&TokenKind::RParen) {
                self.error_expected("an argument after `,`");
            }
        }
        self.expect(&TokenKind::RParen);
        args
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::parse_expr;
    use crate::ast::{BinaryOp, ExprKind, UnaryOp};

    fn binary(src: &str) -> (BinaryOp, ExprKind, ExprKind) {
        match parse_expr(src).kind {
            ExprKind::Binary { op, lhs, rhs } => (op, lhs.kind, rhs.kind),
            other => panic!("{src}: {other:?}"),
        }
    }

    #[test]
    fn bitwise_binds_tighter_than_comparison() {
        let (op, _, rhs) = binary("a == b & c");
        assert_eq!(op, BinaryOp::Eq);
        assert!(matches!(
            rhs,
            ExprKind::Binary {
                op: BinaryOp::BitAnd,
                ..
            }
        ));
        let (op, lhs, _) = binary("a + b * c << 2");
        assert_eq!(op, BinaryOp::Shl);
        assert!(matches!(
            lhs,
            ExprKind::Binary {
                op: BinaryOp::Add,
                ..
            }
        ));
    }

    #[test]
    fn adjacent_angles_shift_right_and_spaced_ones_compare() {
        assert_eq!(binary("a >> 2").0, BinaryOp::Shr);
        assert_eq!(binary("a > b").0, BinaryOp::Gt);
        assert_eq!(binary("a >= b").0, BinaryOp::Ge);
    }

    #[test]
    fn concat_and_saturating_operators() {
        assert_eq!(binary("a ++ b").0, BinaryOp::Concat);
        assert_eq!(binary("a |+| b").0, BinaryOp::AddSat);
        assert_eq!(binary("a |-| b").0, BinaryOp::SubSat);
    }

    #[test]
    fn casts_need_a_type_and_parentheses_otherwise_group() {
        assert!(matches!(
            parse_expr("(bit<8>) x").kind,
            ExprKind::Cast { .. }
        ));
        assert!(matches!(parse_expr("(T) x").kind, ExprKind::Cast { .. }));
        assert!(matches!(
            parse_expr("(list<S>){{2, 3}}").kind,
            ExprKind::Cast { .. }
        ));
        assert!(matches!(
            parse_expr("(x) - 1").kind,
            ExprKind::Binary {
                op: BinaryOp::Sub,
                ..
            }
        ));
        match parse_expr("-(bit<8>) x").kind {
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => {
                assert!(matches!(operand.kind, ExprKind::Cast { .. }))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn generic_calls_versus_less_than() {
        match parse_expr("f<bit<8>>(x)").kind {
            ExprKind::Call {
                type_args, args, ..
            } => {
                assert_eq!(type_args.len(), 1);
                assert_eq!(args.len(), 1);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(binary("a < b").0, BinaryOp::Lt);
        assert_eq!(binary("a < b && c > (d)").0, BinaryOp::And);
    }

    #[test]
    fn type_names_are_not_values_unless_hidden() {
        let src = "control c<H>(in bit<8> x) { apply { bool b = x > H; } }";
        let (_, diags) = super::super::tests::parse_str(src);
        let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
        assert_eq!(messages, ["expected `(` or `.` after type `H`, found `;`"]);
        let program = super::super::tests::parse_ok(
            "extern counter {} typedef bit<8> T;
             control c(in bit<8> T) { apply { bit<8> counter; counter = (T) - 1; } }",
        );
        assert_eq!(program.decls.len(), 3);
    }

    #[test]
    fn postfix_member_index_slice_call() {
        assert!(matches!(
            parse_expr("h.f[i +: 8]").kind,
            ExprKind::IndexedSlice { .. }
        ));
        match parse_expr("h.s[1].f[7:0]").kind {
            ExprKind::Slice { base, .. } => assert!(matches!(base.kind, ExprKind::Member { .. })),
            other => panic!("{other:?}"),
        }
        match parse_expr("t.apply().hit").kind {
            ExprKind::Member { base, member } => {
                assert_eq!(member.name, "hit");
                assert!(matches!(base.kind, ExprKind::Call { .. }));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn initializers_lists_and_invalid() {
        assert!(matches!(parse_expr("{#}").kind, ExprKind::Invalid));
        assert!(matches!(parse_expr("...").kind, ExprKind::DefaultValue));
        match parse_expr("{ 2, ... }").kind {
            ExprKind::List(items) => assert!(matches!(items[1].kind, ExprKind::DefaultValue)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse_expr("{ a, b }").kind, ExprKind::List(ref v) if v.len() == 2));
        match parse_expr("{ f = 1, ... }").kind {
            ExprKind::StructInit { fields, rest, .. } => {
                assert_eq!(fields.len(), 1);
                assert!(rest);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ternary_is_right_associative_and_loosest() {
        match parse_expr("a ? b : c ? d : e").kind {
            ExprKind::Ternary { other, .. } => {
                assert!(matches!(other.kind, ExprKind::Ternary { .. }))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn error_members_and_type_members() {
        match parse_expr("error.NoError").kind {
            ExprKind::Member { base, .. } => assert!(matches!(base.kind, ExprKind::Type(_))),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_expr("bit<8>.minSizeInBits()").kind,
            ExprKind::Call { .. }
        ));
    }
}
