//! Scopes and the symbols they hold: what a name means at a point of the
//! program.
//!
//! P4_16 requires declaration before use, so the checker walks the program
//! once, in order, declaring names as it meets them. Scope 0 is the top
//! level; every parser, control, function, action and block pushes one.
//! Functions, actions and extern functions may be overloaded by arity, so a
//! name can hold several [`Callable`]s in one scope.

use super::consteval::Value;
use super::types::{ParamSig, Type};
use crate::source::Span;
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallableKind {
    Function,
    Action,
    ExternFunction,
    Method,
    AbstractMethod,
    Constructor,
}

/// The signature of anything that can be called.
#[derive(Clone, Debug)]
pub struct Callable {
    pub name: String,
    pub kind: CallableKind,
    pub type_params: Vec<String>,
    pub params: Vec<ParamSig>,
    pub ret: Type,
    /// An `@optional` abstract method: instances need not implement it.
    pub optional: bool,
    /// Where the name is declared.
    pub decl: Span,
}

/// What a name stands for.
#[derive(Clone, Debug)]
pub enum Symbol {
    /// A variable, constant, parameter or instance.
    Value(ValueSym),
    Type(Type),
    /// One or more functions/actions of this name (overloads).
    Callables(Vec<Rc<Callable>>),
    /// A table (index into the checker's table list).
    Table(u32, Span),
    State(Span),
}

#[derive(Clone, Debug)]
pub struct ValueSym {
    pub ty: Type,
    /// False for constants, `in` and directionless parameters, instances.
    pub writable: bool,
    /// The value of a compile-time constant.
    pub value: Option<Value>,
    pub decl: Span,
    pub role: ValueRole,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueRole {
    Variable,
    Constant,
    Parameter,
    /// A directionless action parameter or constructor parameter: bound
    /// by the control plane or at instantiation.
    BoundParameter,
    Instance,
    ValueSet,
}

#[derive(Debug, Default)]
pub struct Scopes {
    levels: Vec<HashMap<String, Symbol>>,
}

impl Scopes {
    pub fn new() -> Scopes {
        Scopes {
            levels: vec![HashMap::new()],
        }
    }

    pub fn push(&mut self) {
        self.levels.push(HashMap::new());
    }

    pub fn pop(&mut self) {
        if self.levels.len() > 1 {
            self.levels.pop();
        }
    }

    pub fn is_top_level(&self) -> bool {
        self.levels.len() == 1
    }

    /// Declares `name` in the innermost scope. Callables of one name
    /// accumulate; any other redeclaration replaces (duplicates are
    /// reported by the structural rules).
    pub fn declare(&mut self, name: &str, symbol: Symbol) {
        let Some(level) = self.levels.last_mut() else {
            return;
        };
        if let (Symbol::Callables(new), Some(Symbol::Callables(old))) =
            (&symbol, level.get_mut(name))
        {
            old.extend(new.iter().cloned());
            return;
        }
        level.insert(name.to_string(), symbol);
    }

    pub fn lookup(&self, name: &str, top_level_only: bool) -> Option<&Symbol> {
        if top_level_only {
            return self.levels.first().and_then(|l| l.get(name));
        }
        self.levels.iter().rev().find_map(|l| l.get(name))
    }

    /// Every callable of `name` visible here, innermost first: an action
    /// named like an extern function does not hide it from calls of
    /// another arity. Stops at a symbol that is not callable.
    pub fn callables(&self, name: &str, top_level_only: bool) -> Vec<Rc<Callable>> {
        let mut found = Vec::new();
        let levels = if top_level_only {
            &self.levels[..self.levels.len().min(1)]
        } else {
            &self.levels[..]
        };
        for level in levels.iter().rev() {
            match level.get(name) {
                Some(Symbol::Callables(list)) => found.extend(list.iter().cloned()),
                Some(_) => break,
                None => {}
            }
        }
        found
    }

    /// The innermost symbol of `name` that is a type.
    pub fn lookup_type(&self, name: &str, top_level_only: bool) -> Option<&Type> {
        let levels: Box<dyn Iterator<Item = &HashMap<String, Symbol>>> = if top_level_only {
            Box::new(self.levels.iter().take(1))
        } else {
            Box::new(self.levels.iter().rev())
        };
        for level in levels {
            if let Some(Symbol::Type(t)) = level.get(name) {
                return Some(t);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constant(n: i64) -> Symbol {
        Symbol::Value(ValueSym {
            ty: Type::InfInt,
            writable: false,
            value: Some(Value::Int {
                value: n.into(),
                ty: Type::InfInt,
            }),
            decl: Span::default(),
            role: ValueRole::Constant,
        })
    }

    #[test]
    fn inner_scopes_shadow_and_top_level_paths_skip_them() {
        let mut s = Scopes::new();
        s.declare("x", constant(1));
        s.push();
        s.declare("x", constant(2));
        let value = |sym: Option<&Symbol>| match sym {
            Some(Symbol::Value(v)) => v.value.clone(),
            _ => None,
        };
        assert_eq!(
            value(s.lookup("x", false)),
            Some(Value::Int {
                value: 2.into(),
                ty: Type::InfInt
            })
        );
        assert_eq!(
            value(s.lookup("x", true)),
            Some(Value::Int {
                value: 1.into(),
                ty: Type::InfInt
            })
        );
        s.pop();
        assert_eq!(
            value(s.lookup("x", false)),
            Some(Value::Int {
                value: 1.into(),
                ty: Type::InfInt
            })
        );
    }

    #[test]
    fn callables_of_one_name_accumulate() {
        let mut s = Scopes::new();
        let f = |n: usize| {
            Rc::new(Callable {
                name: "f".into(),
                kind: CallableKind::Function,
                type_params: vec![],
                params: vec![],
                ret: Type::Void,
                optional: false,
                decl: Span::new(n as u32, n as u32),
            })
        };
        s.declare("f", Symbol::Callables(vec![f(1)]));
        s.declare("f", Symbol::Callables(vec![f(2)]));
        assert!(matches!(s.lookup("f", false), Some(Symbol::Callables(v)) if v.len() == 2));
    }
}
