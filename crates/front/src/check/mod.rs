//! Name resolution, type checking, constant evaluation and instantiation of
//! `main`.
//!
//! The structural rules that need no types run first ([`rules`]); then one
//! in-order walk over the program ([`decls`] for declarations with
//! [`typeref`] for types as written, [`blocks`] for parsers, controls and
//! tables, [`stmt`] for statements, [`expr`], [`ops`], [`convert`],
//! [`calls`] and [`methods`] for expressions) resolves every name and types
//! every expression, evaluating constants on the way ([`consteval`]).
//! Semantic types and their relations are in [`types`], scopes in
//! [`env`]. Finally [`instantiate`] evaluates `main` into a tree of
//! instances. The result is
//! a [`CheckedProgram`]: plain data the back end reads and never re-checks.
//! The checker is lenient where the language is: a type it cannot infer is
//! `Unknown` and accepted, so it never rejects a valid program for lack of
//! inference, and one mistake gives one diagnostic.

mod blocks;
mod calls;
mod consteval;
mod control_plane;
mod convert;
mod decls;
mod env;
mod expr;
mod instantiate;
mod methods;
mod ops;
mod query;
mod rules;
mod stmt;
mod typeref;
mod types;

pub use consteval::Value;
pub use instantiate::{Instance, InstanceArg};
pub use types::{BlockKind, ParamSig, Type, TypeDef, TypeDefKind, TypeId, TypeTable};

use crate::ast::{ExprId, Program};
use crate::diag::Diagnostics;
use crate::source::{Span, TranslationUnit};
use env::{Callable, Scopes};
use std::collections::HashMap;
use std::rc::Rc;

/// The facts the checker established, consumed by the back end.
#[derive(Debug, Default)]
pub struct CheckedProgram {
    /// Every user-declared type; [`Type::Named`] indexes into it.
    pub types: TypeTable,
    /// The type of every expression, indexed by [`ExprId`]`.0` (length
    /// `program.expr_count`). Where an implicit cast applies (an int
    /// literal assigned to `bit<8>`, a list to a struct) it is the type
    /// after the cast. [`Type::Unknown`] only where an error was reported
    /// or inference had nothing to go on.
    pub expr_types: Vec<Type>,
    /// The value of every expression known at compile time (constants,
    /// literals, folded operations), already converted like its type.
    pub values: HashMap<ExprId, Value>,
    /// What each name expression (`ExprKind::Path`) refers to.
    pub refs: HashMap<ExprId, Ref>,
    /// What each call expression (`ExprKind::Call`) resolved to: the
    /// overload chosen and its type arguments, written or inferred.
    pub calls: HashMap<ExprId, CallInfo>,
    /// The type of every declared variable, constant, parameter and
    /// instance, keyed by the span of its name in the declaration.
    pub decl_types: HashMap<Span, Type>,
    /// `main`, evaluated: the package and everything passed to it.
    pub main: Option<Instance>,
}

/// The declaration a name resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ref {
    pub kind: RefKind,
    /// The span of the name in its declaration (`Span::default()` for
    /// built-ins such as `accept` and for types that are not declared
    /// names, such as a typedef of `bit<8>`).
    pub decl: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    Variable,
    Constant,
    Parameter,
    /// A directionless action or constructor parameter.
    BoundParameter,
    Instance,
    ValueSet,
    Type,
    Function,
    Action,
    ExternFunction,
    Table,
    State,
}

pub fn check(program: &Program, unit: &TranslationUnit, diags: &mut Diagnostics) -> CheckedProgram {
    rules::check_rules(program, unit, diags);
    let mut checker = Checker::new(program, unit, diags);
    for decl in &program.decls {
        checker.decl(decl);
    }
    let main = checker.instantiate_main(program);
    if let Some(main) = &main {
        checker.control_plane_names(program, main);
    }
    CheckedProgram {
        types: checker.types,
        expr_types: checker.expr_types,
        values: checker.values,
        refs: checker.refs,
        calls: checker.calls,
        decl_types: checker.decl_types,
        main,
    }
}

/// The callee of one call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallInfo {
    pub kind: CallKind,
    /// The span of the callee's name in its declaration (for a method,
    /// its prototype in the extern; for `apply` of a parser or control,
    /// the block's name). `Span::default()` for built-ins.
    pub decl: Span,
    /// The callee's type arguments in declaration order; `Unknown` for one
    /// nothing determined. Empty for non-generic callees.
    pub type_args: Vec<Type>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    Function,
    Action,
    ExternFunction,
    /// An extern method, or `apply` of a parser or control instance.
    Method,
    /// Instantiation of an extern, parser, control or package.
    Constructor,
    /// `isValid`, `setValid`, `push_front`, `minSizeInBits`, a table's
    /// `apply`, ...: defined by the language, not declared.
    Builtin,
}

/// A table as the rest of the control sees it.
#[derive(Clone, Debug, Default)]
struct TableInfo {
    name: String,
    /// Names of the actions in its `actions` list.
    actions: Vec<String>,
}

/// Where the walk is, for rules that depend on the enclosing block.
#[derive(Clone, Debug, Default)]
struct Context {
    /// Return type of the enclosing function or method (`Void` in actions).
    return_type: Option<Type>,
    in_parser: bool,
    in_control: bool,
    /// The kind of the enclosing function or action body, if any.
    body: Option<env::CallableKind>,
    /// The extern type `this` refers to in an abstract method body.
    this_type: Option<Type>,
}

/// The state of the walk.
struct Checker<'a> {
    unit: &'a TranslationUnit,
    diags: &'a mut Diagnostics,
    types: TypeTable,
    scopes: Scopes,
    expr_types: Vec<Type>,
    values: HashMap<ExprId, Value>,
    refs: HashMap<ExprId, Ref>,
    decl_types: HashMap<Span, Type>,
    tables: Vec<TableInfo>,
    /// The last signature `checked_call` resolved, with the call's span.
    last_call: Option<(Span, CallInfo)>,
    calls: HashMap<ExprId, CallInfo>,
    /// Methods and constructors of each extern type.
    methods: HashMap<TypeId, Vec<Rc<Callable>>>,
    /// Block types of each name, in declaration order: packages (and
    /// parser/control types) may be overloaded by arity.
    block_overloads: HashMap<String, Vec<TypeId>>,
    /// Extern types declared without methods so far (`extern E;`).
    forward_externs: Vec<TypeId>,
    /// Declared members of `error` and `match_kind`.
    errors: Vec<String>,
    match_kinds: Vec<String>,
    ctx: Context,
}

impl<'a> Checker<'a> {
    fn new(
        program: &Program,
        unit: &'a TranslationUnit,
        diags: &'a mut Diagnostics,
    ) -> Checker<'a> {
        Checker {
            unit,
            diags,
            types: TypeTable::default(),
            scopes: Scopes::new(),
            expr_types: vec![Type::Unknown; program.expr_count as usize],
            values: HashMap::new(),
            refs: HashMap::new(),
            decl_types: HashMap::new(),
            tables: Vec::new(),
            last_call: None,
            calls: HashMap::new(),
            methods: HashMap::new(),
            block_overloads: HashMap::new(),
            forward_externs: Vec::new(),
            errors: Vec::new(),
            match_kinds: Vec::new(),
            ctx: Context::default(),
        }
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        let loc = self.unit.resolve(span);
        self.diags.error(loc, message);
    }

    fn warning(&mut self, span: Span, message: impl Into<String>) {
        let loc = self.unit.resolve(span);
        self.diags.warning(loc, message);
    }

    fn show(&self, ty: &Type) -> String {
        self.types.display(ty).to_string()
    }

    fn set_type(&mut self, id: ExprId, ty: &Type) {
        if let Some(slot) = self.expr_types.get_mut(id.0 as usize) {
            *slot = ty.clone();
        }
    }

    fn type_of(&self, id: ExprId) -> Type {
        self.expr_types
            .get(id.0 as usize)
            .cloned()
            .unwrap_or(Type::Unknown)
    }

    /// Runs `f` in a new scope with a modified context.
    fn scoped<R>(&mut self, ctx: Context, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = std::mem::replace(&mut self.ctx, ctx);
        self.scopes.push();
        let result = f(self);
        self.scopes.pop();
        self.ctx = saved;
        result
    }
}

#[cfg(test)]
mod tests;
