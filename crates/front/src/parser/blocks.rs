//! Parser and control declarations: their types (`parser P(...);`), their
//! bodies (local declarations, parser states, the control's `apply` block)
//! and parser transitions with `select`.

use super::Parser;
use crate::ast::{
    Annotation, Block, Decl, DeclKind, ParserState, Path, SelectCase, Transition, TypeRef,
    TypeRefKind,
};
use crate::lexer::TokenKind;
use crate::source::Span;

impl Parser<'_> {
    /// `parser P<T>(params);` or `parser P(params)(ctor params) { ... }`
    pub(super) fn parser_declaration(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        self.bump();
        let sig = self.block_signature();
        if self.eat(&TokenKind::Semi) {
            self.names.pop();
            return self.finish(annotations, DeclKind::ParserType { sig }, start);
        }
        let ctor_params = if self.at(&TokenKind::LParen) {
            self.params()
        } else {
            Vec::new()
        };
        let mut locals = Vec::new();
        let mut states = Vec::new();
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                let item_start = self.span();
                let annotations = self.annotations();
                if self.at(&TokenKind::State) {
                    states.push(self.parser_state(annotations, item_start));
                } else if let Some(decl) = self.local_declaration(annotations, item_start) {
                    locals.push(decl);
                }
            }
            self.expect(&TokenKind::RBrace);
        }
        self.names.pop();
        self.finish(
            annotations,
            DeclKind::Parser {
                sig,
                ctor_params,
                locals,
                states,
            },
            start,
        )
    }

    /// `control C<T>(params);` or `control C(params)(ctor) { locals apply {...} }`
    pub(super) fn control_declaration(
        &mut self,
        annotations: Vec<Annotation>,
        start: Span,
    ) -> Decl {
        self.bump();
        let sig = self.block_signature();
        if self.eat(&TokenKind::Semi) {
            self.names.pop();
            return self.finish(annotations, DeclKind::ControlType { sig }, start);
        }
        let ctor_params = if self.at(&TokenKind::LParen) {
            self.params()
        } else {
            Vec::new()
        };
        let mut locals = Vec::new();
        let mut apply: Option<Block> = None;
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                let item_start = self.span();
                let annotations = self.annotations();
                if self.at(&TokenKind::Apply)
                    && matches!(self.nth(1), TokenKind::LBrace | TokenKind::At)
                {
                    self.bump();
                    if apply.is_some() {
                        self.error_at(item_start, "a control has only one `apply` block".into());
                    }
                    let mut annotations = annotations;
                    annotations.extend(self.annotations());
                    apply = Some(self.block(annotations));
                } else if let Some(decl) = self.local_declaration(annotations, item_start) {
                    locals.push(decl);
                }
            }
            self.expect(&TokenKind::RBrace);
        }
        let apply = apply.unwrap_or_else(|| {
            self.error_at(
                sig.name.span,
                format!("control `{}` has no `apply` block", sig.name.name),
            );
            Block {
                annotations: Vec::new(),
                stmts: Vec::new(),
                span: sig.name.span,
            }
        });
        self.names.pop();
        self.finish(
            annotations,
            DeclKind::Control {
                sig,
                ctor_params,
                locals,
                apply,
            },
            start,
        )
    }

    /// A declaration in a parser or control body: constant, variable,
    /// instance, action, table or value set. Recovers after errors.
    fn local_declaration(&mut self, annotations: Vec<Annotation>, start: Span) -> Option<Decl> {
        self.list_item(|p| p.local_declaration_inner(annotations, start))
    }

    fn local_declaration_inner(
        &mut self,
        annotations: Vec<Annotation>,
        start: Span,
    ) -> Option<Decl> {
        match self.peek() {
            TokenKind::Const => Some(self.constant(annotations, start)),
            TokenKind::Action => Some(self.action(annotations, start)),
            TokenKind::Table => Some(self.table(annotations, start)),
            TokenKind::ValueSet => Some(self.value_set(annotations, start)),
            _ if self.at_type_start() => Some(self.variable_or_instance(annotations, start)),
            _ => {
                self.error_expected("a declaration");
                None
            }
        }
    }

    /// `value_set<T>(size) name;`
    fn value_set(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        self.bump();
        let mut args = self.type_args();
        let elem = args.pop().unwrap_or(TypeRef {
            kind: TypeRefKind::DontCare,
            span: start,
        });
        self.expect(&TokenKind::LParen);
        let size = self.expr();
        self.expect(&TokenKind::RParen);
        let name = self.name();
        self.names.declare_value(&name.name);
        self.expect(&TokenKind::Semi);
        self.finish(annotations, DeclKind::ValueSet { elem, size, name }, start)
    }

    /// `state name { statements transition }`
    fn parser_state(&mut self, annotations: Vec<Annotation>, start: Span) -> ParserState {
        self.bump();
        let name = self.name();
        let mut stmts = Vec::new();
        let mut transition = None;
        self.names.push(&[]);
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                if self.at(&TokenKind::Transition) {
                    if transition.is_some() {
                        self.error("a state has only one transition".into());
                    }
                    transition = Some(self.transition());
                } else if transition.is_some() {
                    self.error_expected("`}` after the transition");
                    self.recover();
                } else if let Some(stmt) = self.statement() {
                    stmts.push(stmt);
                }
            }
            self.expect(&TokenKind::RBrace);
        }
        self.names.pop();
        ParserState {
            annotations,
            name,
            stmts,
            transition,
            span: self.span_from(start),
        }
    }

    /// `transition next;` or `transition select(...) { cases }`
    fn transition(&mut self) -> Transition {
        self.bump();
        if !self.at(&TokenKind::Select) {
            let path = self.path();
            self.expect(&TokenKind::Semi);
            return Transition::Direct(path);
        }
        let start = self.span();
        self.bump();
        self.expect(&TokenKind::LParen);
        let mut exprs = Vec::new();
        while !self.at(&TokenKind::RParen) && !self.at_eof() {
            exprs.push(self.expr());
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        self.expect(&TokenKind::RParen);
        let mut cases = Vec::new();
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                cases.push(self.list_item(Self::select_case));
            }
            self.expect(&TokenKind::RBrace);
        }
        Transition::Select {
            exprs,
            cases,
            span: self.span_from(start),
        }
    }

    /// `keyset : state;`
    fn select_case(&mut self) -> SelectCase {
        let start = self.span();
        let keyset = self.keyset();
        self.expect(&TokenKind::Colon);
        let state = self.path();
        self.expect(&TokenKind::Semi);
        SelectCase {
            keyset,
            state,
            span: self.span_from(start),
        }
    }

    /// A name, or `.name` for a top-level one.
    pub(super) fn path(&mut self) -> Path {
        let start = self.span();
        let top_level = self.eat(&TokenKind::Dot);
        let name = self.name();
        Path {
            top_level,
            name,
            span: self.span_from(start),
        }
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::{parse_ok, parse_str};
    use crate::ast::{DeclKind, Transition};

    #[test]
    fn parser_with_locals_states_and_transitions() {
        let program = parse_ok(
            "parser P(packet_in p, out H h)(bit<8> c) {
                 value_set<bit<16>>(4) vs;
                 Checksum() ck;
                 state start { p.extract(h.eth); transition select(h.eth.t) { vs: next; 0x800: .accept; } }
                 @name(\"n\") state next { transition accept; }
             }",
        );
        let Some(DeclKind::Parser {
            locals,
            states,
            ctor_params,
            ..
        }) = program.decls.first().map(|d| &d.kind)
        else {
            panic!("no parser")
        };
        assert_eq!(ctor_params.len(), 1);
        assert_eq!(locals.len(), 2);
        assert!(matches!(locals[0].kind, DeclKind::ValueSet { .. }));
        assert_eq!(states.len(), 2);
        assert_eq!(states[0].stmts.len(), 1);
        assert!(
            matches!(&states[0].transition, Some(Transition::Select { cases, .. }) if cases.len() == 2)
        );
        assert!(
            matches!(&states[1].transition, Some(Transition::Direct(p)) if p.name.name == "accept")
        );
    }

    #[test]
    fn types_of_parsers_and_controls() {
        let program = parse_ok(
            "parser P<H>(out H h); control C(inout bit<8> x); package S(P<bit<8>> p, C c);",
        );
        assert!(matches!(program.decls[0].kind, DeclKind::ParserType { .. }));
        assert!(matches!(
            program.decls[1].kind,
            DeclKind::ControlType { .. }
        ));
        assert!(matches!(
            program.decls[2].kind,
            DeclKind::PackageType { .. }
        ));
    }

    #[test]
    fn control_without_apply_is_an_error() {
        let (_, diags) = parse_str("control C() { action a() {} }");
        assert!(diags
            .errors()
            .any(|d| d.message == "control `C` has no `apply` block"));
    }
}
