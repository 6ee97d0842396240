//! Table declarations: `key`, `actions`, `entries` (with `const`,
//! `priority =` and keysets), `default_action` and any other
//! `name = value;` property.

use super::Parser;
use crate::ast::{
    ActionRef, Annotation, Decl, DeclKind, Entry, KeyElement, TableProperty, TablePropertyKind,
};
use crate::lexer::TokenKind;
use crate::source::Span;

impl Parser<'_> {
    /// `table name { properties }`
    pub(super) fn table(&mut self, annotations: Vec<Annotation>, start: Span) -> Decl {
        self.bump();
        let name = self.name();
        self.names.declare_value(&name.name);
        let mut properties = Vec::new();
        if self.expect(&TokenKind::LBrace) {
            while !self.at(&TokenKind::RBrace) && !self.at_eof() {
                properties.push(self.list_item(Self::table_property));
            }
            self.expect(&TokenKind::RBrace);
        }
        self.finish(annotations, DeclKind::Table { name, properties }, start)
    }

    fn table_property(&mut self) -> TableProperty {
        let start = self.span();
        let annotations = self.annotations();
        let is_const = self.eat(&TokenKind::Const);
        let kind = match self.peek() {
            TokenKind::Key if self.nth(1) == &TokenKind::Assign => {
                self.bump();
                self.bump();
                TablePropertyKind::Key(self.braced_list(Self::key_element))
            }
            TokenKind::Actions if self.nth(1) == &TokenKind::Assign => {
                self.bump();
                self.bump();
                TablePropertyKind::Actions(self.braced_list(Self::action_ref))
            }
            TokenKind::Entries if self.nth(1) == &TokenKind::Assign => {
                self.bump();
                self.bump();
                TablePropertyKind::Entries(self.braced_list(Self::entry))
            }
            _ => {
                let name = self.name();
                self.expect(&TokenKind::Assign);
                let value = self.expr();
                self.expect(&TokenKind::Semi);
                if name.name == "default_action" {
                    TablePropertyKind::DefaultAction(value)
                } else {
                    TablePropertyKind::Other { name, value }
                }
            }
        };
        TableProperty {
            annotations,
            is_const,
            kind,
            span: self.span_from(start),
        }
    }

    /// `{ item item ... }`, each item ending in `;`, recovering per item.
    fn braced_list<T>(&mut self, item: fn(&mut Self) -> T) -> Vec<T> {
        let mut items = Vec::new();
        if !self.expect(&TokenKind::LBrace) {
            return items;
        }
        while !self.at(&TokenKind::RBrace) && !self.at_eof() {
            items.push(self.list_item(item));
        }
        self.expect(&TokenKind::RBrace);
        items
    }

    /// `expr : match_kind @annotations;`
    fn key_element(&mut self) -> KeyElement {
        let start = self.span();
        let mut annotations = self.annotations();
        let expr = self.expr();
        self.expect(&TokenKind::Colon);
        let match_kind = self.path();
        annotations.extend(self.annotations());
        self.expect(&TokenKind::Semi);
        KeyElement {
            annotations,
            expr,
            match_kind,
            span: self.span_from(start),
        }
    }

    /// `@annotations name;` or `name(args);`
    fn action_ref(&mut self) -> ActionRef {
        let start = self.span();
        let annotations = self.annotations();
        let name = self.path();
        let args = if self.at(&TokenKind::LParen) {
            Some(self.args())
        } else {
            None
        };
        self.expect(&TokenKind::Semi);
        ActionRef {
            annotations,
            name,
            args,
            span: self.span_from(start),
        }
    }

    /// `[const] [priority = N :] keyset : action(args) @annotations;`
    fn entry(&mut self) -> Entry {
        let start = self.span();
        let mut annotations = self.annotations();
        let is_const = self.eat(&TokenKind::Const);
        let priority = if self.at(&TokenKind::Priority) && self.nth(1) == &TokenKind::Assign {
            self.bump();
            self.bump();
            let value = self.expr();
            self.expect(&TokenKind::Colon);
            Some(value)
        } else {
            None
        };
        let keyset = self.keyset();
        self.expect(&TokenKind::Colon);
        let action = self.postfix();
        annotations.extend(self.annotations());
        self.expect(&TokenKind::Semi);
        Entry {
            annotations,
            is_const,
            priority,
            keyset,
            action,
            span: self.span_from(start),
        }
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // a test fails by panicking
mod tests {
    use super::super::tests::parse_ok;
    use crate::ast::{DeclKind, ExprKind, TablePropertyKind};

    fn table_properties(body: &str) -> Vec<TablePropertyKind> {
        let program = parse_ok(&format!(
            "control C() {{ table t {{ {body} }} apply {{ }} }}"
        ));
        let Some(DeclKind::Control { locals, .. }) =
            program.decls.into_iter().next().map(|d| d.kind)
        else {
            panic!("no control")
        };
        match locals.into_iter().next().map(|d| d.kind) {
            Some(DeclKind::Table { properties, .. }) => {
                properties.into_iter().map(|p| p.kind).collect()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn all_property_kinds() {
        let props = table_properties(
            "key = { h.a: exact @name(\"a\"); h.b : lpm; }
             actions = { a; @defaultonly b; .c(1); }
             const default_action = a(2);
             size = 1024;
             const entries = { (1, _): a(); priority = 3: (2 &&& 3, 1 .. 4): b; const 5 : c @x; }",
        );
        assert!(
            matches!(&props[0], TablePropertyKind::Key(k) if k.len() == 2 && k[0].annotations.len() == 1)
        );
        match &props[1] {
            TablePropertyKind::Actions(list) => {
                assert_eq!(list.len(), 3);
                assert_eq!(list[1].annotations.len(), 1);
                assert!(list[2].name.top_level && list[2].args.is_some());
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&props[2], TablePropertyKind::DefaultAction(e) if matches!(e.kind, ExprKind::Call { .. }))
        );
        assert!(matches!(&props[3], TablePropertyKind::Other { name, .. } if name.name == "size"));
        match &props[4] {
            TablePropertyKind::Entries(entries) => {
                assert_eq!(entries.len(), 3);
                assert!(entries[1].priority.is_some());
                assert!(entries[2].is_const);
                assert!(matches!(entries[2].action.kind, ExprKind::Path(_)));
            }
            other => panic!("{other:?}"),
        }
    }
}
