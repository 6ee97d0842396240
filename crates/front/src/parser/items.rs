//! Declarations: the top level of a program, plus the pieces other areas
//! share (constants, variables, instances, functions, actions, parameter
//! lists).
//!
//! Every type-introducing declaration records its name as a type name as
//! soon as the name is read, so later code (and its own body) can use it.

use super::Parser;
use crate::ast::{
    Annotation, Decl, DeclKind, Direction, EnumMember, Field, Ident, Method, MethodKind, Param,
    Signature, TypeRef, TypedefTarget,
};
use crate::lexer::TokenKind;
use crate::source::Span;

impl Parser<'_> {
    /// One top-level declaration; `None` after an error that left nothing
    /// to keep (the bad tokens have been skipped).
    pub(super) fn top_level_declaration(&mut self) -> Option<Decl> {
        let decl = self.list_item(Self::declaration);
        if let Some(Decl {
            kind: DeclKind::Variable { name, .. },
            ..
        }) = &decl
        {
            // The grammar has no top-level variables, only constants.
            self.error_at(
                name.span,
                format!(
                    "variable `{}` cannot be declared at the top level",
                    name.name
                ),
            );
        }
        decl
    }

    fn declaration(&mut self) -> Option<Decl> {
        let start = self.span();
        let annotations = self.annotations();
        let decl = match self.peek() {
            TokenKind::Semi if annotations.is_empty() => {
                self.bump();
                return None;
            }
            TokenKind::Const => self.constant(annotations, start),
            TokenKind::Extern if self.nth_is_name(1) && self.nth(2) == &TokenKind::Semi => {
                // `extern E;`: a forward declaration, only naming a type.
                self.bump();
                let name = self.name();
                self.names.declare_type(&name.name);
                self.bump();
                return None;
            }
            TokenKind::Extern => self.extern_declaration(annotations, start),
            TokenKind::Action => self.action(annotations, start),
            TokenKind::Parser => self.parser_declaration(annotations, start),
            TokenKind::Control => self.control_declaration(annotations, start),
            TokenKind::Package => {
                self.bump();
                let sig = self.block_signature();
                self.expect(&TokenKind::Semi);
                self.names.pop();
                self.finish(annotations, DeclKind::PackageType { sig }, start)
            }
            TokenKind::Header | TokenKind::HeaderUnion | TokenKind::Struct | TokenKind::Enum => {
                self.derived_type(annotations, start)
            }
            TokenKind::Typedef | TokenKind::Type => self.typedef(annotations, start),
            TokenKind::Error if self.nth(1) == &TokenKind::LBrace => {
                self.bump();
                let members = self.member_names();
                self.finish(annotations, DeclKind::Error { members }, start)
            }
            TokenKind::MatchKind if self.nth(1) == &TokenKind::LBrace => {
                self.bump();
                let members = self.member_names();
                self.finish(annotations, DeclKind::MatchKind { members }, start)
            }
            _ if self.at_type_start() => self.function_or_instance(annotations, start),
            _ => {
                self.error_expected("a declaration");
                return None;
            }
        };
        Some(decl)
    }

    pub(super) fn finish(&self, annotations: Vec<Annotation>, kind: DeclKind, start: Span) -> Decl {
        Decl {
            annotations,
            kind,
            span: self.span_from(start),
        }
    }

    /// `const T name = value;`
    pub(super) fn constant(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        self.bump();
        let ty = self.type_ref();
        let name = self.name();
        self.names.declare_value(&name.name);
        self.expect(&TokenKind::Assign);
        let value = self.expr();
        self.expect(&TokenKind::Semi);
        self.finish(annotations, DeclKind::Constant { ty, name, value }, start)
    }

    /// `T name;`, `T name = init;`, `T(args) name;` or
    /// `T(args) name = { abstract method implementations };`
    pub(super) fn variable_or_instance(
        &mut self,
        annotations: Vec<Annotation>,
        start: Span,
    ) -> Decl {
        let ty = self.type_ref();
        self.instance_or_variable_after_type(annotations, ty, start)
    }

    fn instance_or_variable_after_type(
        &mut self,
        annotations: Vec<Annotation>,
        ty: TypeRef,
        start: Span,
    ) -> Decl {
        if self.at(&TokenKind::LParen) {
            let args = self.args();
            let name = self.name();
            self.names.declare_value(&name.name);
            let ty = self.stack_suffixes(ty);
            let initializer = if self.eat(&TokenKind::Assign) {
                Some(self.instance_initializer())
            } else {
                None
            };
            self.expect(&TokenKind::Semi);
            return self.finish(
                annotations,
                DeclKind::Instance {
                    ty,
                    args,
                    name,
                    initializer,
                },
                start,
            );
        }
        let name = self.name();
        self.names.declare_value(&name.name);
        let ty = self.stack_suffixes(ty);
        let init = if self.eat(&TokenKind::Assign) {
            Some(self.expr())
        } else {
            None
        };
        self.expect(&TokenKind::Semi);
        self.finish(annotations, DeclKind::Variable { ty, name, init }, start)
    }

    /// A variable in a `for` initializer: like a local, without the `;`.
    pub(super) fn for_variable(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        let ty = self.type_ref();
        let name = self.name();
        self.names.declare_value(&name.name);
        let init = if self.eat(&TokenKind::Assign) {
            Some(self.expr())
        } else {
            None
        };
        self.finish(annotations, DeclKind::Variable { ty, name, init }, start)
    }

    /// `{ declarations }` after `T(args) name =`.
    fn instance_initializer(&mut self) -> Vec<Decl> {
        let mut decls = Vec::new();
        // The methods declared here are visible only inside.
        self.names.push(&[]);
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                if let Some(decl) = self.top_level_declaration() {
                    decls.push(decl);
                }
            }
            self.expect(&TokenKind::RBrace);
        }
        self.names.pop();
        decls
    }

    /// After a type at the top level: an instance, a function or a
    /// variable.
    fn function_or_instance(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        let ty = self.type_ref();
        if self.at(&TokenKind::LParen) || !matches!(self.nth(1), TokenKind::Lt | TokenKind::LParen)
        {
            return self.instance_or_variable_after_type(annotations, ty, start);
        }
        let sig = self.signature();
        let body = self.block(Vec::new());
        self.names.pop();
        self.finish(
            annotations,
            DeclKind::Function {
                return_type: ty,
                sig,
                body,
            },
            start,
        )
    }

    /// `name<T...>(params)`: the type parameters stay in scope until the
    /// caller's `names.pop()`, as they cover the body too.
    fn signature(&mut self) -> Signature {
        let name = self.name();
        self.names.declare_value(&name.name);
        let type_params = self.type_params();
        self.names.push(&type_params);
        let params = self.params();
        Signature {
            name,
            type_params,
            params,
        }
    }

    /// The signature of a parser, control or package (a type name).
    pub(super) fn block_signature(&mut self) -> Signature {
        let name = self.name();
        self.names.declare_type(&name.name);
        let type_params = self.type_params();
        self.names.push(&type_params);
        let params = self.params();
        Signature {
            name,
            type_params,
            params,
        }
    }

    /// `action name(params) { body }`
    pub(super) fn action(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        self.bump();
        let sig = self.signature();
        let body = self.block(Vec::new());
        self.names.pop();
        self.finish(annotations, DeclKind::Action { sig, body }, start)
    }

    /// `(in T a, out U b = 1, ...)`
    pub(super) fn params(&mut self) -> Vec<Param> {
        let mut params = Vec::new();
        if !self.expect(&TokenKind::LParen) {
            return params;
        }
        while !self.at(&TokenKind::RParen) && !self.at_eof() {
            let start = self.span();
            let annotations = self.annotations();
            let direction = match self.peek() {
                TokenKind::In => Some(Direction::In),
                TokenKind::Out => Some(Direction::Out),
                TokenKind::InOut => Some(Direction::InOut),
                _ => None,
            };
            if direction.is_some() {
                self.bump();
            }
            let ty = self.type_ref();
            let name = self.name();
            self.names.declare_value(&name.name);
            let default = if self.eat(&TokenKind::Assign) {
                Some(self.expr())
            } else {
                None
            };
            params.push(Param {
                annotations,
                direction,
                ty,
                name,
                default,
                span: self.span_from(start),
            });
            if !self.eat(&TokenKind::Comma) {
                break;
            }
            if self.at(&TokenKind::RParen) {
                self.error_expected("a parameter after `,`");
            }
        }
        self.expect(&TokenKind::RParen);
        params
    }

    /// `extern E<T> { methods }` or `extern R f<T>(params);`
    fn extern_declaration(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        self.bump();
        let is_type = self.nth_is_name(0)
            && match self.nth(1) {
                TokenKind::LBrace => true,
                TokenKind::Lt => self
                    .skip_type_args(1)
                    .is_some_and(|i| self.nth(i) == &TokenKind::LBrace),
                _ => false,
            };
        if !is_type {
            let return_type = self.type_ref();
            let sig = self.signature();
            self.expect(&TokenKind::Semi);
            self.names.pop();
            return self.finish(
                annotations,
                DeclKind::ExternFunction { return_type, sig },
                start,
            );
        }
        let name = self.name();
        self.names.declare_type(&name.name);
        let type_params = self.type_params();
        self.names.push(&type_params);
        let mut methods = Vec::new();
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                methods.push(self.list_item(|p| p.method(&name)));
            }
            self.expect(&TokenKind::RBrace);
        }
        self.names.pop();
        self.finish(
            annotations,
            DeclKind::ExternType {
                name,
                type_params,
                methods,
            },
            start,
        )
    }

    /// A method prototype of extern `owner`: `R m<T>(params);`,
    /// `abstract R m(params);` or the constructor `owner(params);`.
    fn method(&mut self, owner: &Ident) -> Method {
        let start = self.span();
        let annotations = self.annotations();
        let is_constructor = Self::name_text(self.peek()) == Some(owner.name.as_str())
            && self.nth(1) == &TokenKind::LParen;
        let (kind, return_type) = if is_constructor {
            (MethodKind::Constructor, None)
        } else if self.eat(&TokenKind::Abstract) {
            (MethodKind::Abstract, Some(self.type_ref()))
        } else {
            (MethodKind::Method, Some(self.type_ref()))
        };
        let sig = self.signature();
        self.names.pop();
        if kind != MethodKind::Constructor && sig.name.name == owner.name {
            let message = format!("constructor `{}` cannot have a return type", owner.name);
            self.error_at(sig.name.span, message);
        }
        self.expect(&TokenKind::Semi);
        Method {
            annotations,
            kind,
            return_type,
            sig,
            span: self.span_from(start),
        }
    }

    /// `header`, `header_union`, `struct` or `enum` declarations.
    fn derived_type(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        let keyword = self.bump().kind.clone();
        if keyword == TokenKind::Enum {
            return self.enum_declaration(annotations, start);
        }
        let name = self.name();
        self.names.declare_type(&name.name);
        let type_params = self.type_params();
        self.names.push(&type_params);
        let fields = self.fields();
        self.names.pop();
        let kind = match keyword {
            TokenKind::Header => DeclKind::Header {
                name,
                type_params,
                fields,
            },
            TokenKind::HeaderUnion => DeclKind::HeaderUnion {
                name,
                type_params,
                fields,
            },
            _ => DeclKind::Struct {
                name,
                type_params,
                fields,
            },
        };
        self.finish(annotations, kind, start)
    }

    /// `{ T name; ... }`
    fn fields(&mut self) -> Vec<Field> {
        let mut fields = Vec::new();
        if !self.expect(&TokenKind::LBrace) {
            return fields;
        }
        while !self.at(&TokenKind::RBrace) && !self.at_eof() {
            fields.push(self.list_item(Self::field));
        }
        self.expect(&TokenKind::RBrace);
        fields
    }

    /// `@annotations T name;`
    fn field(&mut self) -> Field {
        let start = self.span();
        let annotations = self.annotations();
        let ty = self.type_ref();
        let name = self.name();
        let ty = self.stack_suffixes(ty);
        self.expect(&TokenKind::Semi);
        Field {
            annotations,
            ty,
            name,
            span: self.span_from(start),
        }
    }

    /// After `enum`: `E { A, B }` or `bit<8> E { A = 1, B = 2 }`.
    fn enum_declaration(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        let underlying = if self.nth_is_name(0) && self.nth(1) == &TokenKind::LBrace {
            None
        } else {
            Some(self.type_ref())
        };
        let name = self.name();
        self.names.declare_type(&name.name);
        let mut members = Vec::new();
        if self.expect(&TokenKind::LBrace) {
            // The grammar's identifier lists are never empty.
            if self.at(&TokenKind::RBrace) {
                self.error_expected("a member");
            }
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                let annotations = self.annotations();
                let name = self.name();
                let value = if self.eat(&TokenKind::Assign) {
                    Some(self.expr())
                } else {
                    None
                };
                members.push(EnumMember {
                    annotations,
                    name,
                    value,
                });
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
            self.expect(&TokenKind::RBrace);
        }
        self.finish(
            annotations,
            DeclKind::Enum {
                name,
                underlying,
                members,
            },
            start,
        )
    }

    /// `{ A, B, C }` of `error` and `match_kind` declarations.
    fn member_names(&mut self) -> Vec<Ident> {
        let mut names = Vec::new();
        if self.expect(&TokenKind::LBrace) {
            if self.at(&TokenKind::RBrace) {
                self.error_expected("a member");
            }
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                names.push(self.name());
                if !self.eat(&TokenKind::Comma) {
                    break;
                }
            }
            self.expect(&TokenKind::RBrace);
        }
        names
    }

    /// `typedef T name;` / `type T name;`, where T may also be a header,
    /// struct, union or enum declared in place.
    fn typedef(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        let is_new_type = self.bump().kind == TokenKind::Type;
        let target = match self.peek() {
            TokenKind::Header | TokenKind::HeaderUnion | TokenKind::Struct | TokenKind::Enum => {
                let inner_start = self.span();
                TypedefTarget::Decl(Box::new(self.derived_type(Vec::new(), inner_start)))
            }
            _ => TypedefTarget::Type(self.type_ref()),
        };
        let name = self.name();
        self.names.declare_type(&name.name);
        self.expect(&TokenKind::Semi);
        let kind = if is_new_type {
            DeclKind::NewType { target, name }
        } else {
            DeclKind::Typedef { target, name }
        };
        self.finish(annotations, kind, start)
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::{parse_ok, parse_str};
    use crate::ast::{DeclKind, MethodKind, TypeRefKind, TypedefTarget};

    fn kinds(src: &str) -> Vec<DeclKind> {
        parse_ok(src).decls.into_iter().map(|d| d.kind).collect()
    }

    #[test]
    fn type_declarations() {
        let decls = kinds(
            "header h_t { bit<8> a; @name(\"b\") varbit<16> b; }
             header_union u_t { h_t h; }
             struct S<T> { T f; h_t[2] s; }
             enum E { A, B, }
             enum bit<8> F { X = 1, Y = 2 }
             error { Bad, Worse }
             match_kind { exact, lpm }
             typedef bit<9> port_t;
             type bit<32> id_t;
             typedef header g_t { bit<1> x; } g2_t;",
        );
        assert!(matches!(&decls[0], DeclKind::Header { fields, .. } if fields.len() == 2));
        assert!(matches!(&decls[1], DeclKind::HeaderUnion { .. }));
        assert!(
            matches!(&decls[2], DeclKind::Struct { type_params, .. } if type_params.len() == 1)
        );
        assert!(
            matches!(&decls[3], DeclKind::Enum { members, underlying: None, .. } if members.len() == 2)
        );
        assert!(matches!(
            &decls[4],
            DeclKind::Enum {
                underlying: Some(_),
                ..
            }
        ));
        assert!(matches!(&decls[5], DeclKind::Error { members } if members.len() == 2));
        assert!(matches!(&decls[6], DeclKind::MatchKind { .. }));
        assert!(matches!(&decls[7], DeclKind::Typedef { .. }));
        assert!(matches!(&decls[8], DeclKind::NewType { .. }));
        assert!(matches!(
            &decls[9],
            DeclKind::Typedef {
                target: TypedefTarget::Decl(_),
                ..
            }
        ));
    }

    #[test]
    fn externs_functions_and_instances() {
        let decls = kinds(
            "extern Checksum<T> { Checksum(); void add<D>(in D d); abstract T get(); }
             extern void mark(inout bit<8> x);
             extern T pick<T>(in T a, in T b);
             bit<8> twice(in bit<8> x) { return x + x; }
             T id<T>(in T x) { return x; }
             Checksum<bit<16>>() ck;
             Checksum<bit<16>>() ck2 = { bit<16> get() { return this.x; } };
             Checksum<bit<16>>() cks[2];
             package Top<H>(P<H> p);",
        );
        match &decls[0] {
            DeclKind::ExternType {
                methods,
                type_params,
                ..
            } => {
                assert_eq!(type_params.len(), 1);
                assert_eq!(methods[0].kind, MethodKind::Constructor);
                assert_eq!(methods[1].sig.type_params.len(), 1);
                assert_eq!(methods[2].kind, MethodKind::Abstract);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&decls[1], DeclKind::ExternFunction { .. }));
        assert!(
            matches!(&decls[2], DeclKind::ExternFunction { sig, .. } if sig.type_params.len() == 1)
        );
        assert!(matches!(&decls[3], DeclKind::Function { .. }));
        assert!(matches!(&decls[4], DeclKind::Function { .. }));
        assert!(matches!(
            &decls[5],
            DeclKind::Instance {
                initializer: None,
                ..
            }
        ));
        assert!(
            matches!(&decls[6], DeclKind::Instance { initializer: Some(d), .. } if d.len() == 1)
        );
        assert!(
            matches!(&decls[7], DeclKind::Instance { ty, .. } if matches!(ty.kind, TypeRefKind::Stack { .. }))
        );
        assert!(matches!(&decls[8], DeclKind::PackageType { .. }));
    }

    #[test]
    fn forward_declared_externs_are_type_names() {
        let program = parse_ok("extern E; const bit<8> x = (E) y;");
        assert_eq!(program.decls.len(), 1);
    }

    #[test]
    fn constructors_have_no_return_type() {
        let (_, diags) = parse_str("extern X { void X(); }");
        let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
        assert_eq!(messages, ["constructor `X` cannot have a return type"]);
    }

    #[test]
    fn top_level_variables_are_rejected() {
        let (_, diags) = parse_str("bit<8> x; const bit<8> y = 1;");
        let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
        assert_eq!(
            messages,
            ["variable `x` cannot be declared at the top level"]
        );
    }

    #[test]
    fn bad_declarations_are_reported_and_skipped() {
        let (program, diags) = parse_str("header h { bit<8> } 42; struct s { bit<8> a; }");
        let messages: Vec<_> = diags.errors().map(|d| d.message.clone()).collect();
        assert_eq!(
            messages,
            [
                "expected a name, found `}`",
                "expected a declaration, found integer literal"
            ]
        );
        assert_eq!(program.decls.len(), 2);
    }
}
