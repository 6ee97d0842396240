//! The semantic types of P4_16 and the relations between them.
//!
//! A [`Type`] is plain data: user-declared types (headers, structs, enums,
//! externs, block types, ...) are referred to by [`TypeId`], an index into
//! the table of [`TypeDef`]s. Typedefs are resolved away when a type is
//! built, so two spellings of one type compare equal. [`Type::Unknown`]
//! stands for "not known because of an earlier error" and is compatible with
//! everything, so one mistake is reported once. The rules for implicit
//! conversions (spec 8.11.2) live in [`TypeTable::convertible`].

use crate::ast::Direction;
use crate::source::Span;
use num_bigint::BigInt;
use std::fmt;

/// Index of a user-declared type in [`TypeTable::defs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeId(pub u32);

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// Unknown because of an earlier error (or not inferable): compatible
    /// with every type, never reported.
    Unknown,
    Void,
    Bool,
    String,
    /// `int`: arbitrary-precision integer (literals and constants).
    InfInt,
    Bit(u32),
    Int(u32),
    Varbit(u32),
    /// The `error` type.
    Error,
    MatchKind,
    /// A user-declared type, specialized with `args` when it is generic.
    Named {
        id: TypeId,
        args: Vec<Type>,
    },
    /// A type variable of the enclosing generic declaration.
    Var(String),
    /// `T[n]`: header stack or array.
    Stack(Box<Type>, u32),
    Tuple(Vec<Type>),
    List(Box<Type>),
    /// The type of `{a, b}` before the context gives it one.
    ListExpr(Vec<Type>),
    /// The type of `{f = a, ...}` before the context gives it one.
    StructExpr(Vec<(String, Type)>),
    /// `{#}`: an invalid header or union of any header type.
    InvalidExpr,
    /// `_`: matches anything (keysets, out arguments).
    DontCare,
    /// A table (index into the checker's table list).
    Table(u32),
    /// The result of `t.apply()`: has `hit`, `miss`, `action_run`.
    ApplyResult(u32),
    /// The type of `t.apply().action_run`: one member per action of table.
    ActionRun(u32),
    /// A parser state (only as a select/transition target).
    State,
    /// A keyset expression (`a &&& b`, `a .. b`, `default`) over a type.
    Keyset(Box<Type>),
    /// A callable thing used as a value (function, action, method): only
    /// good for calling.
    Callable,
    /// An expression that names a type (`E` in `E.A`, `error` in
    /// `error.X`, `h_t` in `h_t.minSizeInBits()`).
    TypeName(Box<Type>),
    /// `value_set<T>`: usable as a keyset of type T.
    ValueSet(Box<Type>),
}

/// What a user-declared type is.
#[derive(Clone, Debug)]
pub enum TypeDefKind {
    Header {
        fields: Vec<(String, Type)>,
    },
    HeaderUnion {
        fields: Vec<(String, Type)>,
    },
    Struct {
        fields: Vec<(String, Type)>,
    },
    /// `underlying` is set for serializable enums, and then each member
    /// has its value (reduced to the underlying width) unless it was wrong.
    Enum {
        underlying: Option<Type>,
        members: Vec<(String, Option<BigInt>)>,
    },
    /// `type T N;`: a new type with T's representation.
    NewType(Type),
    Extern,
    /// Parser, control or package type; for a declared parser or control
    /// (`is_decl`) the constructor parameters matter too.
    Block {
        block: BlockKind,
        is_decl: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Parser,
    Control,
    Package,
}

/// A parameter of anything callable or constructible.
#[derive(Clone, Debug)]
pub struct ParamSig {
    pub name: String,
    pub direction: Option<Direction>,
    pub ty: Type,
    /// Has a default value or is `@optional`: may be left out of a call.
    pub optional: bool,
    /// Has a default value (left out, the default is passed; `@optional`
    /// alone passes nothing).
    pub has_default: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TypeDef {
    pub name: String,
    pub kind: TypeDefKind,
    pub type_params: Vec<String>,
    /// Parameters of the apply signature (parser/control/package types).
    pub params: Vec<ParamSig>,
    /// Constructor parameters of a declared parser or control.
    pub ctor_params: Vec<ParamSig>,
    /// Where the name is declared.
    pub span: Span,
}

/// All user-declared types of a program.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    pub defs: Vec<TypeDef>,
}

impl TypeTable {
    pub fn add(&mut self, def: TypeDef) -> TypeId {
        self.defs.push(def);
        TypeId(self.defs.len() as u32 - 1)
    }

    pub fn get(&self, id: TypeId) -> Option<&TypeDef> {
        self.defs.get(id.0 as usize)
    }

    pub fn get_mut(&mut self, id: TypeId) -> Option<&mut TypeDef> {
        self.defs.get_mut(id.0 as usize)
    }

    pub fn kind(&self, ty: &Type) -> Option<&TypeDefKind> {
        match ty {
            Type::Named { id, .. } => self.get(*id).map(|d| &d.kind),
            _ => None,
        }
    }

    /// Fields of a header, union or struct, with type arguments substituted.
    pub fn fields(&self, ty: &Type) -> Option<Vec<(String, Type)>> {
        let Type::Named { id, args } = ty else {
            return None;
        };
        let def = self.get(*id)?;
        let fields = match &def.kind {
            TypeDefKind::Header { fields }
            | TypeDefKind::HeaderUnion { fields }
            | TypeDefKind::Struct { fields } => fields,
            _ => return None,
        };
        Some(
            fields
                .iter()
                .map(|(n, t)| (n.clone(), subst(t, &def.type_params, args)))
                .collect(),
        )
    }

    pub fn is_header(&self, ty: &Type) -> bool {
        matches!(self.kind(ty), Some(TypeDefKind::Header { .. }))
    }

    pub fn is_union(&self, ty: &Type) -> bool {
        matches!(self.kind(ty), Some(TypeDefKind::HeaderUnion { .. }))
    }

    pub fn is_struct(&self, ty: &Type) -> bool {
        matches!(self.kind(ty), Some(TypeDefKind::Struct { .. }))
    }

    /// The underlying type of a serializable enum.
    pub fn enum_underlying(&self, ty: &Type) -> Option<Type> {
        match self.kind(ty) {
            Some(TypeDefKind::Enum { underlying, .. }) => underlying.clone(),
            _ => None,
        }
    }

    /// Whether a value of type `from` may be used where `to` is expected,
    /// with implicit casts (int literals to fixed widths, serializable
    /// enums to their underlying type, initializer lists to structured
    /// types). Unknown is accepted everywhere; a type variable of the
    /// enclosing generic declaration is rigid (equal only to itself).
    pub fn convertible(&self, from: &Type, to: &Type) -> bool {
        use Type::*;
        match (from, to) {
            (Unknown, _) | (_, Unknown) => true,
            (Var(a), Var(b)) => a == b,
            (Var(_), DontCare) | (DontCare, Var(_)) => true,
            (Var(_), _) | (_, Var(_)) => false,
            (DontCare, _) | (_, DontCare) => true,
            (a, b) if a == b => true,
            (InfInt, Bit(_) | Int(_) | InfInt) => true,
            // A fixed-width value where an `int` is expected (a compile-time
            // parameter of type `int`): the reference compiler accepts it.
            (Bit(_) | Int(_), InfInt) => true,
            (InfInt, Named { .. }) => {
                matches!(self.kind(to), Some(TypeDefKind::NewType(t)) if self.convertible(from, t))
            }
            (Named { id: a, args: aa }, Named { id: b, args: ba }) if a == b => {
                aa.len() == ba.len() && aa.iter().zip(ba).all(|(x, y)| self.same(x, y))
            }
            (Named { .. }, Named { .. }) if self.block_params(from).is_some() => {
                self.block_matches(from, to)
            }
            (Named { .. }, _) => self
                .enum_underlying(from)
                .is_some_and(|u| self.same(&u, to)),
            (InvalidExpr, _) => self.is_header(to) || self.is_union(to),
            (ListExpr(items), _) => self.list_convertible(items, to),
            // `{...}`: the default value of a structured type.
            (StructExpr(fields), _) if fields.iter().all(|(n, _)| n == "...") => {
                matches!(to, Stack(..) | Tuple(_)) || self.fields(to).is_some()
            }
            (StructExpr(fields), _) => self.struct_convertible(fields, to),
            (Stack(a, n), Stack(b, m)) => n == m && self.same(a, b),
            (Tuple(a), Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.convertible(x, y))
            }
            (Tuple(a), List(b)) => a.iter().all(|x| self.convertible(x, b)),
            (List(a), List(b)) => self.same(a, b),
            (Keyset(a), Keyset(b)) => self.convertible(a, b),
            (ValueSet(a), Keyset(b)) => self.convertible(a, b),
            (TypeName(a), TypeName(b)) => self.same(a, b),
            _ => false,
        }
    }

    /// The apply parameters of a parser, control or package type, with
    /// its type arguments substituted.
    pub fn block_params(&self, ty: &Type) -> Option<Vec<ParamSig>> {
        let Type::Named { id, args } = ty else {
            return None;
        };
        let def = self.get(*id)?;
        let TypeDefKind::Block { .. } = def.kind else {
            return None;
        };
        Some(
            def.params
                .iter()
                .map(|p| ParamSig {
                    ty: subst(&p.ty, &def.type_params, args),
                    ..p.clone()
                })
                .collect(),
        )
    }

    /// Whether a declared parser or control fits a parser or control type:
    /// same kind, parameters of the same directions and types.
    fn block_matches(&self, from: &Type, to: &Type) -> bool {
        let kind = |t: &Type| match self.kind(t) {
            Some(TypeDefKind::Block { block, .. }) => Some(*block),
            _ => None,
        };
        if kind(from).is_none() || kind(from) != kind(to) {
            return false;
        }
        let (Some(fp), Some(tp)) = (self.block_params(from), self.block_params(to)) else {
            return false;
        };
        fp.len() <= tp.len()
            && tp.iter().skip(fp.len()).all(|p| p.optional)
            && fp
                .iter()
                .zip(&tp)
                .all(|(a, b)| a.direction == b.direction && self.same_modulo_vars(&a.ty, &b.ty))
    }

    /// Type equality where Unknown and type variables match anything:
    /// for comparing two generic signatures.
    fn same_modulo_vars(&self, a: &Type, b: &Type) -> bool {
        match (a, b) {
            (Type::Var(_), _) | (_, Type::Var(_)) => true,
            (Type::Named { id: x, args: xa }, Type::Named { id: y, args: ya }) => {
                x == y && xa.iter().zip(ya).all(|(p, q)| self.same_modulo_vars(p, q))
            }
            _ => self.same(a, b),
        }
    }

    /// Type equality where Unknown matches anything.
    pub fn same(&self, a: &Type, b: &Type) -> bool {
        use Type::*;
        match (a, b) {
            (Unknown, _) | (_, Unknown) => true,
            (Named { id: x, args: xa }, Named { id: y, args: ya }) => {
                x == y && xa.len() == ya.len() && xa.iter().zip(ya).all(|(p, q)| self.same(p, q))
            }
            (Stack(x, n), Stack(y, m)) => n == m && self.same(x, y),
            (Tuple(x), Tuple(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| self.same(p, q))
            }
            (List(x), List(y)) => self.same(x, y),
            _ => a == b,
        }
    }

    fn list_convertible(&self, items: &[Type], to: &Type) -> bool {
        // `{a, ...}`: the remaining elements take their default values.
        if let Some((Type::DontCare, given)) = items.split_last() {
            let room = match to {
                Type::Tuple(elems) => elems.len(),
                Type::Stack(_, n) => *n as usize,
                Type::List(_) => usize::MAX,
                _ => self.fields(to).map_or(0, |f| f.len()),
            };
            return given.len() <= room && self.list_convertible_prefix(given, to);
        }
        match to {
            Type::Tuple(elems) => {
                items.len() == elems.len()
                    && items.iter().zip(elems).all(|(a, b)| self.convertible(a, b))
            }
            Type::List(elem) => items.iter().all(|a| self.convertible(a, elem)),
            Type::Stack(elem, n) => {
                items.len() == *n as usize && items.iter().all(|a| self.convertible(a, elem))
            }
            _ => match self.fields(to) {
                Some(fields) if !self.is_union(to) => {
                    items.len() == fields.len()
                        && items
                            .iter()
                            .zip(&fields)
                            .all(|(a, (_, b))| self.convertible(a, b))
                }
                _ => false,
            },
        }
    }

    /// Whether `items` convert to the first elements of `to`.
    fn list_convertible_prefix(&self, items: &[Type], to: &Type) -> bool {
        match to {
            Type::Tuple(elems) => items.iter().zip(elems).all(|(a, b)| self.convertible(a, b)),
            Type::Stack(e, _) | Type::List(e) => items.iter().all(|a| self.convertible(a, e)),
            _ => {
                let fields = self.fields(to).unwrap_or_default();
                items
                    .iter()
                    .zip(&fields)
                    .all(|(a, (_, b))| self.convertible(a, b))
            }
        }
    }

    fn struct_convertible(&self, given: &[(String, Type)], to: &Type) -> bool {
        let Some(fields) = self.fields(to) else {
            return false;
        };
        if self.is_union(to) {
            return false;
        }
        // `{f = a, ...}`: fields not named take their default values.
        let rest = given.iter().any(|(n, _)| n == "...");
        let named: Vec<&(String, Type)> = given.iter().filter(|(n, _)| n != "...").collect();
        let all_known = named.iter().all(|(n, t)| {
            fields
                .iter()
                .any(|(f, ft)| f == n && self.convertible(t, ft))
        });
        all_known && (rest || named.len() == fields.len())
    }

    /// Width in bits of a fixed-size type (`minSizeInBits`), if it has one.
    pub fn width_of(&self, ty: &Type) -> Option<u64> {
        match ty {
            Type::Bool => Some(1),
            Type::Bit(w) | Type::Int(w) => Some(u64::from(*w)),
            Type::Varbit(_) => Some(0),
            Type::Stack(e, n) => self.width_of(e).map(|w| w.saturating_mul(u64::from(*n))),
            Type::Named { .. } => match self.kind(ty)? {
                TypeDefKind::NewType(t) => self.width_of(t),
                TypeDefKind::Enum {
                    underlying: Some(u),
                    ..
                } => self.width_of(u),
                TypeDefKind::HeaderUnion { .. } => self
                    .fields(ty)?
                    .iter()
                    .map(|(_, t)| self.width_of(t))
                    .max()
                    .flatten(),
                _ => self.fields(ty)?.iter().try_fold(0u64, |acc, (_, t)| {
                    Some(acc.saturating_add(self.width_of(t)?))
                }),
            },
            _ => None,
        }
    }

    /// The type a value takes part in arithmetic as: a serializable enum
    /// counts as its representation (a new type does not: it needs a cast).
    pub fn numeric(&self, ty: &Type) -> Type {
        match self.kind(ty) {
            Some(TypeDefKind::Enum {
                underlying: Some(u),
                ..
            }) => u.clone(),
            _ => ty.clone(),
        }
    }

    /// The representation of a new type (through nested new types) or of
    /// a serializable enum; other types are their own representation.
    pub fn representation(&self, ty: &Type) -> Type {
        match self.kind(ty) {
            Some(TypeDefKind::NewType(t)) => self.representation(t),
            Some(TypeDefKind::Enum {
                underlying: Some(u),
                ..
            }) => u.clone(),
            _ => ty.clone(),
        }
    }

    pub fn display<'a>(&'a self, ty: &'a Type) -> TypeDisplay<'a> {
        TypeDisplay { table: self, ty }
    }
}

/// Replaces type variables named in `params` by the matching `args`.
pub fn subst(ty: &Type, params: &[String], args: &[Type]) -> Type {
    if params.is_empty() || args.is_empty() {
        return ty.clone();
    }
    let sub = |t: &Type| subst(t, params, args);
    match ty {
        Type::Var(name) => match params.iter().position(|p| p == name) {
            Some(i) => args.get(i).cloned().unwrap_or(Type::Unknown),
            None => ty.clone(),
        },
        Type::Named { id, args: inner } => Type::Named {
            id: *id,
            args: inner.iter().map(sub).collect(),
        },
        Type::Stack(e, n) => Type::Stack(Box::new(sub(e)), *n),
        Type::Tuple(ts) => Type::Tuple(ts.iter().map(sub).collect()),
        Type::List(e) => Type::List(Box::new(sub(e))),
        Type::Keyset(e) => Type::Keyset(Box::new(sub(e))),
        Type::ValueSet(e) => Type::ValueSet(Box::new(sub(e))),
        Type::TypeName(e) => Type::TypeName(Box::new(sub(e))),
        _ => ty.clone(),
    }
}

/// Binds type variables of `pattern` so that it matches `actual`; the
/// bindings are pushed to `bound` (first binding wins). Returns false on a
/// conflict between two bindings of one variable.
pub fn unify(
    table: &TypeTable,
    pattern: &Type,
    actual: &Type,
    vars: &[String],
    bound: &mut Vec<Option<Type>>,
) -> bool {
    let go = |p: &Type, a: &Type, bound: &mut Vec<Option<Type>>| unify(table, p, a, vars, bound);
    match (pattern, actual) {
        (Type::Var(name), _) => {
            let Some(i) = vars.iter().position(|v| v == name) else {
                return true;
            };
            let concrete = match actual {
                Type::ListExpr(_) | Type::StructExpr(_) | Type::InvalidExpr | Type::DontCare => {
                    return true
                }
                Type::Unknown => return true,
                _ => actual.clone(),
            };
            match bound.get_mut(i) {
                Some(slot @ None) => {
                    *slot = Some(concrete);
                    true
                }
                Some(Some(prev)) if *prev == Type::InfInt => {
                    *prev = concrete;
                    true
                }
                Some(Some(prev)) => {
                    *prev == concrete || concrete == Type::InfInt || !is_concrete(prev)
                }
                None => true,
            }
        }
        (Type::Named { id: a, args: pa }, Type::Named { id: b, args: aa }) if a == b => {
            pa.iter().zip(aa).all(|(p, x)| go(p, x, bound))
        }
        (Type::Named { .. }, Type::Named { .. }) => {
            // A declared parser/control against a generic block type.
            match (table.block_params(pattern), table.block_params(actual)) {
                (Some(ps), Some(xs)) => ps.iter().zip(&xs).all(|(p, x)| go(&p.ty, &x.ty, bound)),
                _ => true,
            }
        }
        (Type::Stack(p, _), Type::Stack(a, _)) | (Type::List(p), Type::List(a)) => go(p, a, bound),
        (Type::Tuple(ps), Type::Tuple(xs)) => ps.iter().zip(xs).all(|(p, x)| go(p, x, bound)),
        (Type::Tuple(ps), Type::ListExpr(xs)) => ps.iter().zip(xs).all(|(p, x)| go(p, x, bound)),
        (Type::List(p), Type::ListExpr(xs)) => xs.iter().all(|x| go(p, x, bound)),
        _ => true,
    }
}

fn is_concrete(ty: &Type) -> bool {
    !matches!(ty, Type::Unknown | Type::Var(_))
}

pub struct TypeDisplay<'a> {
    table: &'a TypeTable,
    ty: &'a Type,
}

impl<'a> fmt::Display for TypeDisplay<'a> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |t: &'a Type| TypeDisplay {
            table: self.table,
            ty: t,
        };
        let list = |f: &mut fmt::Formatter<'_>, ts: &[Type]| -> fmt::Result {
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(
                    f,
                    "{}",
                    TypeDisplay {
                        table: self.table,
                        ty: t
                    }
                )?;
            }
            Ok(())
        };
        match self.ty {
            Type::Unknown => write!(f, "<unknown>"),
            Type::Void => write!(f, "void"),
            Type::Bool => write!(f, "bool"),
            Type::String => write!(f, "string"),
            Type::InfInt => write!(f, "int"),
            Type::Bit(w) => write!(f, "bit<{w}>"),
            Type::Int(w) => write!(f, "int<{w}>"),
            Type::Varbit(w) => write!(f, "varbit<{w}>"),
            Type::Error => write!(f, "error"),
            Type::MatchKind => write!(f, "match_kind"),
            Type::Named { id, args } => {
                let name = self.table.get(*id).map_or("?", |d| d.name.as_str());
                write!(f, "{name}")?;
                if !args.is_empty() {
                    write!(f, "<")?;
                    list(f, args)?;
                    write!(f, ">")?;
                }
                Ok(())
            }
            Type::Var(n) => write!(f, "{n}"),
            Type::Stack(e, n) => write!(f, "{}[{n}]", show(e)),
            Type::Tuple(ts) => {
                write!(f, "tuple<")?;
                list(f, ts)?;
                write!(f, ">")
            }
            Type::List(e) => write!(f, "list<{}>", show(e)),
            Type::ListExpr(ts) => {
                write!(f, "{{")?;
                list(f, ts)?;
                write!(f, "}}")
            }
            Type::StructExpr(fs) => {
                write!(f, "{{")?;
                for (i, (n, t)) in fs.iter().enumerate() {
                    write!(f, "{}{n} = {}", if i > 0 { ", " } else { "" }, show(t))?;
                }
                write!(f, "}}")
            }
            Type::InvalidExpr => write!(f, "{{#}}"),
            Type::DontCare => write!(f, "_"),
            Type::Table(_) => write!(f, "table"),
            Type::ApplyResult(_) => write!(f, "table apply result"),
            Type::ActionRun(_) => write!(f, "action_run"),
            Type::State => write!(f, "state"),
            Type::Keyset(t) => write!(f, "set<{}>", show(t)),
            Type::Callable => write!(f, "callable"),
            Type::TypeName(t) => write!(f, "type {}", show(t)),
            Type::ValueSet(t) => write!(f, "value_set<{}>", show(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_with_struct() -> (TypeTable, Type) {
        let mut table = TypeTable::default();
        let id = table.add(TypeDef {
            name: "S".into(),
            kind: TypeDefKind::Struct {
                fields: vec![("a".into(), Type::Bit(8)), ("b".into(), Type::Bool)],
            },
            type_params: vec![],
            params: vec![],
            ctor_params: vec![],
            span: Span::default(),
        });
        (table, Type::Named { id, args: vec![] })
    }

    #[test]
    fn int_literals_convert_to_fixed_widths_but_widths_do_not_mix() {
        let t = TypeTable::default();
        assert!(t.convertible(&Type::InfInt, &Type::Bit(8)));
        assert!(!t.convertible(&Type::Bit(16), &Type::Bit(8)));
        assert!(!t.convertible(&Type::Bit(8), &Type::Int(8)));
        assert!(!t.convertible(&Type::Bool, &Type::Bit(1)));
    }

    #[test]
    fn initializer_lists_convert_fieldwise() {
        let (t, s) = table_with_struct();
        assert!(t.convertible(&Type::ListExpr(vec![Type::InfInt, Type::Bool]), &s));
        assert!(!t.convertible(&Type::ListExpr(vec![Type::Bool, Type::Bool]), &s));
        let named = Type::StructExpr(vec![("b".into(), Type::Bool), ("a".into(), Type::Bit(8))]);
        assert!(t.convertible(&named, &s));
        let missing = Type::StructExpr(vec![("a".into(), Type::Bit(8))]);
        assert!(!t.convertible(&missing, &s));
        assert_eq!(t.width_of(&s), Some(9));
    }

    #[test]
    fn unify_binds_variables_and_detects_conflicts() {
        let vars = vec!["T".to_string()];
        let mut bound = vec![None];
        let table = TypeTable::default();
        assert!(unify(
            &table,
            &Type::Var("T".into()),
            &Type::Bit(8),
            &vars,
            &mut bound
        ));
        assert!(!unify(
            &table,
            &Type::Var("T".into()),
            &Type::Bool,
            &vars,
            &mut bound
        ));
        assert_eq!(
            subst(&Type::Var("T".into()), &vars, &[Type::Bit(8)]),
            Type::Bit(8)
        );
    }
}
