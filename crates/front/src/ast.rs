//! The abstract syntax tree of a P4_16 program, as the parser builds it.
//!
//! Plain data, no behaviour: every node carries the [`Span`] of the text it
//! came from, and every expression an [`ExprId`] (unique within a program) so
//! later stages can keep facts about it (its type, its constant value) in side
//! tables instead of mutating the tree. Names are not resolved here.

use crate::source::Span;
use num_bigint::BigInt;

/// An identifier as written, e.g. `ipv4` or `apply`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A possibly top-level-qualified name: `x` or `.x` (the latter skips local
/// scopes and looks only at the top level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub top_level: bool,
    pub name: Ident,
    pub span: Span,
}

/// A whole program: the top-level declarations in source order, those of
/// included files first.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub decls: Vec<Decl>,
    /// One more than the largest [`ExprId`] in the program.
    pub expr_count: u32,
}

// ---------------------------------------------------------------------------
// Annotations

/// `@name`, `@name(...)` or `@name[...]`.
#[derive(Clone, Debug)]
pub struct Annotation {
    pub name: Ident,
    pub body: AnnotationBody,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum AnnotationBody {
    /// `@hidden`
    Empty,
    /// `@name("x")`, `@priority(3)`: the body parsed as an expression list.
    Expressions(Vec<Expr>),
    /// `@foo[a = 1, b = "x"]`: a structured key-value annotation.
    KeyValues(Vec<(Ident, Expr)>),
    /// A body that is not a list of expressions; its span between the
    /// parentheses is kept so it can be read as tokens later if needed.
    Unparsed(Span),
}

// ---------------------------------------------------------------------------
// Types as written

#[derive(Clone, Debug)]
pub struct TypeRef {
    pub kind: TypeRefKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TypeRefKind {
    Bool,
    /// The `error` type.
    Error,
    /// `match_kind` as a type (only in parameter positions of externs).
    MatchKind,
    String,
    Void,
    /// `int` without width: the type of arbitrary-precision literals.
    InfInt,
    /// `bit<W>`; plain `bit` is `bit<1>` (width given as a literal 1).
    Bit(Box<Expr>),
    /// `int<W>`.
    Int(Box<Expr>),
    /// `varbit<W>`.
    Varbit(Box<Expr>),
    /// A named type, possibly specialized: `H`, `.H`, `Register<bit<32>, _>`.
    Named {
        path: Path,
        args: Vec<TypeRef>,
    },
    /// A header stack or array: `h_t[4]`.
    Stack {
        elem: Box<TypeRef>,
        size: Box<Expr>,
    },
    /// `tuple<bit<8>, bool>`.
    Tuple(Vec<TypeRef>),
    /// `list<T>`.
    List(Box<TypeRef>),
    /// `_` as a type argument: let inference pick it.
    DontCare,
}

// ---------------------------------------------------------------------------
// Expressions

/// Identity of an expression node, dense from 0 in a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

#[derive(Clone, Debug)]
pub struct Expr {
    pub id: ExprId,
    pub kind: ExprKind,
    pub span: Span,
}

/// An integer literal: `42`, `8w255`, `4s-1`'s magnitude, `0x_ff`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntLit {
    /// The value (non-negative as written; unary minus is a separate node).
    pub value: BigInt,
    /// `Some((width, signed))` for `8w...` / `8s...` literals.
    pub width: Option<(u32, bool)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    Complement,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    /// `|+|`
    AddSat,
    /// `|-|`
    SubSat,
    Shl,
    Shr,
    Le,
    Ge,
    Lt,
    Gt,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    /// `++`
    Concat,
    And,
    Or,
}

/// An argument of a call or instantiation: positional or `name = value`.
/// The value may be `_` ([`ExprKind::DontCare`]) for an unused out argument.
#[derive(Clone, Debug)]
pub struct Argument {
    pub name: Option<Ident>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Bool(bool),
    Int(IntLit),
    /// A string literal, without quotes, escapes kept as written.
    String(String),
    /// A name: a variable, constant, instance, action, type, ...
    Path(Path),
    /// `this` inside an abstract method implementation.
    This,
    /// `e.name`: field, method, enum member (`E.A`), error (`error.X`),
    /// or type member (`h.minSizeInBits`).
    Member {
        base: Box<Expr>,
        member: Ident,
    },
    /// `e[i]`
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `e[hi:lo]`
    Slice {
        base: Box<Expr>,
        hi: Box<Expr>,
        lo: Box<Expr>,
    },
    /// `e[lo +: width]`: `width` (a constant) bits starting at bit `lo`.
    IndexedSlice {
        base: Box<Expr>,
        lo: Box<Expr>,
        width: Box<Expr>,
    },
    /// `f(args)`, `f<T>(args)`, `t.apply()`, `Counter(10)` (a constructor
    /// call when `callee` names a type).
    Call {
        callee: Box<Expr>,
        type_args: Vec<TypeRef>,
        args: Vec<Argument>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        other: Box<Expr>,
    },
    /// `(T) e`
    Cast {
        ty: TypeRef,
        expr: Box<Expr>,
    },
    /// A type used where an expression stands, e.g. the base of
    /// `bit<8>.minSizeInBits()` or a specialized constructor callee.
    Type(TypeRef),
    /// `{ a, b, c }`: list, tuple or positional struct/header initializer;
    /// in a select keyset it is a tuple of keysets.
    List(Vec<Expr>),
    /// `{ f1 = a, f2 = b }`, or `{ f1 = a, ... }` (`rest`: the other fields
    /// are don't-care). `ty` is set when a type name is written before the
    /// braces.
    StructInit {
        ty: Option<TypeRef>,
        fields: Vec<(Ident, Expr)>,
        rest: bool,
    },
    /// `{#}`: an invalid header or union.
    Invalid,
    /// `...`: the default value of the expected type; also the last item
    /// of a list initializer `{ 2, ... }` (the remaining fields take their
    /// defaults) and an argument `a(...)`.
    DefaultValue,
    /// `_`: don't care (keysets, out arguments).
    DontCare,
    /// `default` in a keyset.
    Default,
    /// `value &&& mask` in a keyset.
    Mask {
        value: Box<Expr>,
        mask: Box<Expr>,
    },
    /// `lo .. hi` in a keyset.
    Range {
        lo: Box<Expr>,
        hi: Box<Expr>,
    },
    /// Stands in for an expression that failed to parse (a diagnostic has
    /// been reported); later stages give it an error type silently.
    Error,
}

// ---------------------------------------------------------------------------
// Statements

#[derive(Clone, Debug)]
pub struct Block {
    pub annotations: Vec<Annotation>,
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum SwitchLabel {
    Default(Span),
    /// An action name or a constant expression.
    Expr(Expr),
}

/// `label: { ... }` or `label:` (falls through to the next case's block).
#[derive(Clone, Debug)]
pub struct SwitchCase {
    pub label: SwitchLabel,
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `lhs = rhs;`
    Assign {
        lhs: Expr,
        rhs: Expr,
    },
    /// `lhs op= rhs`, e.g. `x += 1;` or `x |+|= y;` (`op` is the binary
    /// operator: `Add`, `AddSat`, `Shr`, ...).
    CompoundAssign {
        op: BinaryOp,
        lhs: Expr,
        rhs: Expr,
    },
    /// A call used as a statement: `f(x);`, `t.apply();`, `p.extract(h);`.
    Call(Expr),
    If {
        cond: Expr,
        then: Box<Stmt>,
        other: Option<Box<Stmt>>,
    },
    Block(Block),
    Switch {
        expr: Expr,
        cases: Vec<SwitchCase>,
    },
    /// `for (init; cond; update) body`
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        update: Vec<Stmt>,
        body: Box<Stmt>,
    },
    /// `for (T x in e) body`
    ForIn {
        ty: Option<TypeRef>,
        var: Ident,
        range: Expr,
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Exit,
    Return(Option<Expr>),
    /// A local variable or constant (also instantiations in parser/control
    /// bodies, which the checker rejects where they are not allowed).
    Decl(Box<Decl>),
    Empty,
}

// ---------------------------------------------------------------------------
// Parsers

#[derive(Clone, Debug)]
pub struct ParserState {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub stmts: Vec<Stmt>,
    /// `None` when the state has no transition statement (an error unless
    /// it is `accept` or `reject`, which are never declared).
    pub transition: Option<Transition>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Transition {
    /// `transition next;`
    Direct(Path),
    /// `transition select(e1, e2) { keyset: next; ... }`
    Select {
        exprs: Vec<Expr>,
        cases: Vec<SelectCase>,
        span: Span,
    },
}

/// `keyset : state;` where `keyset` is an expression that may use `_`,
/// `default`, `&&&`, `..`, a value set name, or a `{...}` tuple of those.
#[derive(Clone, Debug)]
pub struct SelectCase {
    pub keyset: Expr,
    pub state: Path,
    pub span: Span,
}

// ---------------------------------------------------------------------------
// Tables

#[derive(Clone, Debug)]
pub struct KeyElement {
    pub annotations: Vec<Annotation>,
    pub expr: Expr,
    pub match_kind: Path,
    pub span: Span,
}

/// An entry of the `actions` list, e.g. `a`, `@defaultonly b`, `c(x)`.
#[derive(Clone, Debug)]
pub struct ActionRef {
    pub annotations: Vec<Annotation>,
    pub name: Path,
    /// `Some` when written with parentheses: arguments bound at compile time.
    pub args: Option<Vec<Argument>>,
    pub span: Span,
}

/// One entry of `entries = { ... }`.
#[derive(Clone, Debug)]
pub struct Entry {
    pub annotations: Vec<Annotation>,
    /// `const` before an entry of a non-const `entries` list.
    pub is_const: bool,
    /// `priority = N :`
    pub priority: Option<Expr>,
    pub keyset: Expr,
    /// An action name or call.
    pub action: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TableProperty {
    pub annotations: Vec<Annotation>,
    /// Written with `const` before the property name.
    pub is_const: bool,
    pub kind: TablePropertyKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TablePropertyKind {
    Key(Vec<KeyElement>),
    Actions(Vec<ActionRef>),
    Entries(Vec<Entry>),
    /// `default_action = a(1);`: an action name or call.
    DefaultAction(Expr),
    /// Any other property: `size = 1024;`, `implementation = hash_table(8);`.
    Other {
        name: Ident,
        value: Expr,
    },
}

// ---------------------------------------------------------------------------
// Declarations

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub annotations: Vec<Annotation>,
    pub direction: Option<Direction>,
    pub ty: TypeRef,
    pub name: Ident,
    /// `= value` (optional parameters with defaults).
    pub default: Option<Expr>,
    pub span: Span,
}

/// A field of a header, header union or struct.
#[derive(Clone, Debug)]
pub struct Field {
    pub annotations: Vec<Annotation>,
    pub ty: TypeRef,
    pub name: Ident,
    pub span: Span,
}

/// A member of an enum, with its value for serializable enums.
#[derive(Clone, Debug)]
pub struct EnumMember {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub value: Option<Expr>,
}

/// The shared head of functions, methods, actions and block types.
#[derive(Clone, Debug)]
pub struct Signature {
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub params: Vec<Param>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodKind {
    /// Same name as the extern: a constructor.
    Constructor,
    Method,
    /// `abstract T f(...)`: implemented by the instance's initializer.
    Abstract,
}

/// A method prototype inside an `extern` type.
#[derive(Clone, Debug)]
pub struct Method {
    pub annotations: Vec<Annotation>,
    pub kind: MethodKind,
    /// `None` for constructors.
    pub return_type: Option<TypeRef>,
    pub sig: Signature,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub annotations: Vec<Annotation>,
    pub kind: DeclKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TypedefTarget {
    Type(TypeRef),
    /// `typedef header h_t { ... } alias;` and similar.
    Decl(Box<Decl>),
}

#[derive(Clone, Debug)]
pub enum DeclKind {
    /// `const T name = value;`
    Constant {
        ty: TypeRef,
        name: Ident,
        value: Expr,
    },
    /// `T name;` / `T name = init;` (locals and parser/control members)
    Variable {
        ty: TypeRef,
        name: Ident,
        init: Option<Expr>,
    },
    /// `T(args) name;` or `T(args) name = { abstract method bodies };`
    /// An array of instances `T(args) name[4];` has `ty` `T[4]`, as does
    /// a C-style array variable `T name[4];`.
    Instance {
        ty: TypeRef,
        args: Vec<Argument>,
        name: Ident,
        initializer: Option<Vec<Decl>>,
    },
    Header {
        name: Ident,
        type_params: Vec<Ident>,
        fields: Vec<Field>,
    },
    HeaderUnion {
        name: Ident,
        type_params: Vec<Ident>,
        fields: Vec<Field>,
    },
    Struct {
        name: Ident,
        type_params: Vec<Ident>,
        fields: Vec<Field>,
    },
    /// `enum E { A, B }` or `enum bit<8> E { A = 1, B = 2 }`.
    Enum {
        name: Ident,
        underlying: Option<TypeRef>,
        members: Vec<EnumMember>,
    },
    /// `error { A, B }`: adds members to the one `error` type.
    Error { members: Vec<Ident> },
    /// `match_kind { exact, lpm }`
    MatchKind { members: Vec<Ident> },
    /// `typedef T name;`
    Typedef { target: TypedefTarget, name: Ident },
    /// `type T name;`: a new type with T's representation.
    NewType { target: TypedefTarget, name: Ident },
    /// `extern E<T> { methods }`
    ExternType {
        name: Ident,
        type_params: Vec<Ident>,
        methods: Vec<Method>,
    },
    /// `extern R f<T>(params);`
    ExternFunction {
        return_type: TypeRef,
        sig: Signature,
    },
    /// `R f<T>(params) { body }`
    Function {
        return_type: TypeRef,
        sig: Signature,
        body: Block,
    },
    /// `action a(params) { body }` (type_params is always empty).
    Action { sig: Signature, body: Block },
    /// `parser P<T>(params);`: a parser type.
    ParserType { sig: Signature },
    /// `control C<T>(params);`: a control type.
    ControlType { sig: Signature },
    /// `package P<T>(params);`
    PackageType { sig: Signature },
    Parser {
        sig: Signature,
        ctor_params: Vec<Param>,
        locals: Vec<Decl>,
        states: Vec<ParserState>,
    },
    Control {
        sig: Signature,
        ctor_params: Vec<Param>,
        locals: Vec<Decl>,
        apply: Block,
    },
    Table {
        name: Ident,
        properties: Vec<TableProperty>,
    },
    /// `value_set<T>(size) name;`
    ValueSet {
        elem: TypeRef,
        size: Expr,
        name: Ident,
    },
}

impl Decl {
    /// The name this declaration introduces, if it introduces exactly one.
    pub fn name(&self) -> Option<&Ident> {
        match &self.kind {
            DeclKind::Constant { name, .. }
            | DeclKind::Variable { name, .. }
            | DeclKind::Instance { name, .. }
            | DeclKind::Header { name, .. }
            | DeclKind::HeaderUnion { name, .. }
            | DeclKind::Struct { name, .. }
            | DeclKind::Enum { name, .. }
            | DeclKind::Typedef { name, .. }
            | DeclKind::NewType { name, .. }
            | DeclKind::ExternType { name, .. }
            | DeclKind::Table { name, .. }
            | DeclKind::ValueSet { name, .. } => Some(name),
            DeclKind::ExternFunction { sig, .. }
            | DeclKind::Function { sig, .. }
            | DeclKind::Action { sig, .. }
            | DeclKind::ParserType { sig }
            | DeclKind::ControlType { sig }
            | DeclKind::PackageType { sig }
            | DeclKind::Parser { sig, .. }
            | DeclKind::Control { sig, .. } => Some(&sig.name),
            DeclKind::Error { .. } | DeclKind::MatchKind { .. } => None,
        }
    }
}
