//! Types as written (`bit<8>`, `H[4]`, `Register<bit<32>, _>`, `tuple<...>`),
//! type-argument lists and type-parameter lists.
//!
//! In a type position any name is read as a type name, known or not: only
//! expressions need to tell type names apart (see `lookahead`).

use super::Parser;
use crate::ast::{ExprKind, Ident, IntLit, Path, TypeRef, TypeRefKind};
use crate::lexer::TokenKind;
use num_bigint::BigInt;

impl Parser<'_> {
    /// Can a type start at the current token?
    pub(super) fn at_type_start(&self) -> bool {
        matches!(
            self.peek(),
            TokenKind::Bool
                | TokenKind::String
                | TokenKind::Error
                | TokenKind::MatchKind
                | TokenKind::Void
                | TokenKind::Int
                | TokenKind::Bit
                | TokenKind::Varbit
                | TokenKind::Tuple
                | TokenKind::Dot
        ) || self.at_name()
    }

    /// A type, with any header-stack suffixes `[n]`.
    pub(super) fn type_ref(&mut self) -> TypeRef {
        let start = self.span();
        if !self.enter() {
            return TypeRef {
                kind: TypeRefKind::Void,
                span: start,
            };
        }
        let ty = self.type_without_stack();
        let ty = self.stack_suffixes(ty);
        self.leave();
        ty
    }

    /// Any `[n]` after a type (or after a declared name, C-style: `T x[4]`
    /// is `T[4] x`). Each makes the type one level deeper, and later stages
    /// walk types recursively, so each counts as nesting.
    pub(super) fn stack_suffixes(&mut self, mut ty: TypeRef) -> TypeRef {
        let mut levels = 0;
        while self.at(&TokenKind::LBracket) && self.enter() {
            levels += 1;
            self.bump();
            let size = self.expr();
            self.expect(&TokenKind::RBracket);
            let span = self.span_from(ty.span);
            ty = TypeRef {
                kind: TypeRefKind::Stack {
                    elem: Box::new(ty),
                    size: Box::new(size),
                },
                span,
            };
        }
        for _ in 0..levels {
            self.leave();
        }
        ty
    }

    fn type_without_stack(&mut self) -> TypeRef {
        let start = self.span();
        let kind = match self.peek() {
            TokenKind::Bool => self.keyword_type(TypeRefKind::Bool),
            TokenKind::String => self.keyword_type(TypeRefKind::String),
            TokenKind::Error => self.keyword_type(TypeRefKind::Error),
            TokenKind::MatchKind => self.keyword_type(TypeRefKind::MatchKind),
            TokenKind::Void => self.keyword_type(TypeRefKind::Void),
            TokenKind::Bit => {
                self.bump();
                match self.optional_width() {
                    Some(width) => TypeRefKind::Bit(Box::new(width)),
                    None => {
                        let one = ExprKind::Int(IntLit {
                            value: BigInt::from(1),
                            width: None,
                        });
                        TypeRefKind::Bit(Box::new(self.new_expr(one, start)))
                    }
                }
            }
            TokenKind::Int => {
                self.bump();
                match self.optional_width() {
                    Some(width) => TypeRefKind::Int(Box::new(width)),
                    None => TypeRefKind::InfInt,
                }
            }
            TokenKind::Varbit => {
                self.bump();
                match self.optional_width() {
                    Some(width) => TypeRefKind::Varbit(Box::new(width)),
                    None => {
                        self.error_expected("`<`");
                        TypeRefKind::Varbit(Box::new(self.error_expr()))
                    }
                }
            }
            TokenKind::Tuple => {
                self.bump();
                if self.at(&TokenKind::Lt) {
                    TypeRefKind::Tuple(self.type_args())
                } else {
                    self.error_expected("`<`");
                    TypeRefKind::Tuple(Vec::new())
                }
            }
            TokenKind::List if self.nth(1) == &TokenKind::Lt => {
                self.bump();
                let mut args = self.type_args();
                let elem = match args.pop() {
                    Some(elem) if args.is_empty() => elem,
                    _ => {
                        self.error_at(start, "`list` takes exactly one type argument".into());
                        TypeRef {
                            kind: TypeRefKind::DontCare,
                            span: start,
                        }
                    }
                };
                TypeRefKind::List(Box::new(elem))
            }
            TokenKind::Dot => {
                self.bump();
                self.named_type(start, true)
            }
            _ if self.at_name() => self.named_type(start, false),
            _ => {
                self.error_expected("a type");
                TypeRefKind::Named {
                    path: self.missing_path(),
                    args: Vec::new(),
                }
            }
        };
        TypeRef {
            kind,
            span: self.span_from(start),
        }
    }

    fn keyword_type(&mut self, kind: TypeRefKind) -> TypeRefKind {
        self.bump();
        kind
    }

    fn named_type(&mut self, start: crate::source::Span, top_level: bool) -> TypeRefKind {
        let name = self.name();
        let path = Path {
            top_level,
            span: self.span_from(start),
            name,
        };
        let args = if self.at(&TokenKind::Lt) {
            self.type_args()
        } else {
            Vec::new()
        };
        TypeRefKind::Named { path, args }
    }

    /// A placeholder path for a name that is missing (already reported).
    pub(super) fn missing_path(&self) -> Path {
        let span = self.span();
        Path {
            top_level: false,
            name: Ident {
                name: String::new(),
                span,
            },
            span,
        }
    }

    /// `<W>` after `bit`, `int` or `varbit`: an expression in which `>`
    /// must be parenthesised (`bit<(a > b ? 8 : 16)>`).
    fn optional_width(&mut self) -> Option<crate::ast::Expr> {
        if !self.eat(&TokenKind::Lt) {
            return None;
        }
        let width = self.width_expr();
        self.expect(&TokenKind::Gt);
        Some(width)
    }

    /// `<T1, T2, ...>`; an argument may be `_` (inferred) or `void`.
    pub(super) fn type_args(&mut self) -> Vec<TypeRef> {
        let mut args = Vec::new();
        self.expect(&TokenKind::Lt);
        while !self.at(&TokenKind::Gt) && !self.at_eof() {
            if self.at(&TokenKind::Underscore) {
                let span = self.bump().span;
                args.push(TypeRef {
                    kind: TypeRefKind::DontCare,
                    span,
                });
            } else if self.at_type_start() {
                args.push(self.type_ref());
            } else {
                self.error_expected("a type");
                break;
            }
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::Gt);
        args
    }

    /// An optional `<T, U>` list of type parameters.
    pub(super) fn type_params(&mut self) -> Vec<Ident> {
        let mut params = Vec::new();
        if !self.eat(&TokenKind::Lt) {
            return params;
        }
        while !self.at(&TokenKind::Gt) && !self.at_eof() {
            params.push(self.name());
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::Gt);
        params
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::parse_str;
    use crate::ast::{DeclKind, TypeRefKind};

    fn var_type(src: &str) -> TypeRefKind {
        let (program, diags) = parse_str(src);
        assert!(!diags.has_errors(), "{src}: {diags:?}");
        match program.decls.into_iter().next().map(|d| d.kind) {
            Some(DeclKind::Constant { ty, .. }) => ty.kind,
            other => panic!("not a constant: {other:?}"),
        }
    }

    #[test]
    fn nested_type_arguments_close_with_adjacent_angles() {
        match var_type("const Reg<bit<32>, bit<8>> r = 1;") {
            TypeRefKind::Named { path, args } => {
                assert_eq!(path.name.name, "Reg");
                assert_eq!(args.len(), 2);
                assert!(matches!(args[0].kind, TypeRefKind::Bit(_)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn stacks_tuples_and_dont_care() {
        assert!(matches!(
            var_type("const h_t[4] s = 1;"),
            TypeRefKind::Stack { .. }
        ));
        match var_type("const tuple<bit<8>, _, bool> t = 1;") {
            TypeRefKind::Tuple(args) => {
                assert!(matches!(args[1].kind, TypeRefKind::DontCare));
                assert!(matches!(args[2].kind, TypeRefKind::Bool));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            var_type("const bit<(4 + 4)> t = 1;"),
            TypeRefKind::Bit(_)
        ));
        assert!(matches!(var_type("const int t = 1;"), TypeRefKind::InfInt));
        assert!(matches!(
            var_type("const bit<W[7:0] - 1> t = 1;"),
            TypeRefKind::Bit(_)
        ));
        assert!(matches!(
            var_type("const bit<a < 3 ? 5 : (4 > 1 ? 3 : 2)> t = 1;"),
            TypeRefKind::Bit(_)
        ));
        assert!(matches!(
            var_type("const tuple<bit<a ^ 3>, bit<8>> t = 1;"),
            TypeRefKind::Tuple(_)
        ));
    }

    #[test]
    fn varbit_needs_a_width() {
        let (_, diags) = parse_str("const varbit x = 1;");
        assert!(diags.has_errors());
    }
}
