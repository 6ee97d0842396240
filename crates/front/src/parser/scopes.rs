//! Which names are type names where the parser stands, as P4's grammar
//! needs to know (`(T) e` is a cast only if `T` names a type).
//!
//! Top-level type declarations go in the outermost scope; a generic
//! declaration opens a scope with its type parameters; bodies and blocks
//! open scopes too, so that a local value named like a type (a variable
//! `counter` beside an extern `counter`) hides the type where it is visible.

use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binding {
    Type,
    Value,
}

pub(super) struct Scopes {
    /// Innermost last; never empty (the first is the top level).
    scopes: Vec<HashMap<String, Binding>>,
}

impl Scopes {
    pub(super) fn new() -> Scopes {
        Scopes {
            scopes: vec![HashMap::new()],
        }
    }

    /// Does `name` denote a type here?
    pub(super) fn is_type(&self, name: &str) -> bool {
        let innermost = self.scopes.iter().rev().find_map(|scope| scope.get(name));
        innermost == Some(&Binding::Type)
    }

    /// Records a top-level type (header, typedef, extern, parser...).
    pub(super) fn declare_type(&mut self, name: &str) {
        if let Some(top) = self.scopes.first_mut() {
            top.insert(name.to_string(), Binding::Type);
        }
    }

    /// Records a value (variable, parameter, constant, instance...) in the
    /// innermost scope.
    pub(super) fn declare_value(&mut self, name: &str) {
        if let Some(inner) = self.scopes.last_mut() {
            inner.insert(name.to_string(), Binding::Value);
        }
    }

    /// Opens a scope holding `type_params` (none for a plain block).
    pub(super) fn push(&mut self, type_params: &[crate::ast::Ident]) {
        let scope = type_params
            .iter()
            .map(|p| (p.name.clone(), Binding::Type))
            .collect();
        self.scopes.push(scope);
    }

    /// Closes the innermost scope; the top level is never closed.
    pub(super) fn pop(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Scopes;
    use crate::ast::Ident;
    use crate::source::Span;

    #[test]
    fn values_hide_types_in_inner_scopes_only() {
        let mut scopes = Scopes::new();
        scopes.declare_type("counter");
        scopes.push(&[]);
        scopes.declare_value("counter");
        assert!(!scopes.is_type("counter"));
        scopes.pop();
        assert!(scopes.is_type("counter"));
        scopes.push(&[Ident {
            name: "T".into(),
            span: Span::default(),
        }]);
        assert!(scopes.is_type("T"));
        scopes.pop();
        scopes.pop();
        assert!(!scopes.is_type("T"));
    }
}
