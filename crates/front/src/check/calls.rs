//! Calls: resolving the callee (functions, actions, extern functions,
//! constructors; methods are in [`super::methods`]), choosing an overload,
//! and checking arguments against the chosen signature.
//!
//! Overloads are chosen by arity and argument names, then by argument
//! types. Type arguments are either written or inferred by unifying
//! parameter types with argument types; a variable nothing binds stays
//! [`Type::Unknown`], except where the reference compiler refuses to guess
//! (an `int` literal or a `_` for a generic parameter). `out`/`inout`
//! arguments must be l-values of exactly the parameter type; `in` and
//! directionless arguments get implicit casts. What each call resolved to
//! is recorded for the back end ([`super::CallInfo`]).

use super::env::{Callable, CallableKind, Symbol};
use super::types::{subst, unify, ParamSig, Type, TypeDefKind, TypeId};
use super::{CallInfo, CallKind, Checker};
use crate::ast::{Argument, Direction, Expr, ExprKind, TypeRef};
use crate::diag::counted;
use crate::source::Span;
use std::rc::Rc;

pub(super) use super::ops::binary;

/// How many trailing directionless parameters a call may leave out (an
/// action in a table's `actions` list leaves them to the control plane).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Binding {
    AllArguments,
    ControlPlaneTail,
}

impl Checker<'_> {
    pub(super) fn call_expr(
        &mut self,
        e: &Expr,
        callee: &Expr,
        type_args: &[TypeRef],
        args: &[Argument],
    ) -> Type {
        let ty = self.dispatch_call(e, callee, type_args, args);
        // `checked_call` leaves what it resolved; built-in methods do not.
        let info = match self.last_call.take() {
            Some((span, info)) if span == e.span => Some(info),
            _ if matches!(callee.kind, ExprKind::Member { .. }) && !matches!(ty, Type::Unknown) => {
                Some(CallInfo {
                    kind: CallKind::Builtin,
                    decl: Span::default(),
                    type_args: Vec::new(),
                })
            }
            _ => None,
        };
        if let Some(info) = info {
            self.calls.insert(e.id, info);
        }
        ty
    }

    fn dispatch_call(
        &mut self,
        e: &Expr,
        callee: &Expr,
        type_args: &[TypeRef],
        args: &[Argument],
    ) -> Type {
        let targs: Vec<Type> = type_args.iter().map(|t| self.resolve_type(t)).collect();
        if let Some(t) = type_args
            .iter()
            .zip(&targs)
            .find(|(_, ty)| matches!(ty, Type::Void))
        {
            self.error(t.0.span, "`void` cannot be a type argument");
        }
        match &callee.kind {
            ExprKind::Member { base, member } => {
                let callee_ty = self.expr(callee);
                if matches!(callee_ty, Type::Unknown) {
                    self.args_only(args);
                    return Type::Unknown;
                }
                let base_ty = self.type_of(base.id);
                self.method_call(e, base, &base_ty, member, &targs, args)
            }
            ExprKind::Path(path) => {
                let sym = self.scopes.lookup(&path.name.name, path.top_level).cloned();
                match sym {
                    Some(Symbol::Callables(inner)) => {
                        // The innermost declarations win unless none fits.
                        let list = if inner
                            .iter()
                            .any(|c| arity_fits(c, args, Binding::AllArguments))
                        {
                            inner
                        } else {
                            self.scopes.callables(&path.name.name, path.top_level)
                        };
                        self.expr(callee);
                        let is_action = list.iter().all(|c| c.kind == CallableKind::Action);
                        if is_action
                            && (self.ctx.body == Some(CallableKind::Function) || self.ctx.in_parser)
                        {
                            self.error(
                                e.span,
                                format!(
                                    "action `{}` can only be called from a control or an action",
                                    path.name.name
                                ),
                            );
                        }
                        let ret = self.overloaded_call(
                            e.span,
                            &path.name.name,
                            &list,
                            &targs,
                            args,
                            Binding::AllArguments,
                        );
                        if path.name.name == "static_assert" {
                            self.static_assert(e, args);
                        }
                        ret
                    }
                    Some(Symbol::Type(t)) => {
                        self.expr(callee);
                        self.constructor_call(e.span, &t, &targs, args)
                    }
                    _ => {
                        let ty = self.expr(callee);
                        self.args_only(args);
                        if !matches!(ty, Type::Unknown) {
                            self.error(
                                callee.span,
                                format!("`{}` cannot be called", path.name.name),
                            );
                        }
                        Type::Unknown
                    }
                }
            }
            ExprKind::Type(t) => {
                let ty = self.resolve_type(t);
                self.constructor_call(e.span, &ty, &targs, args)
            }
            _ => {
                self.expr(callee);
                self.args_only(args);
                self.error(callee.span, "this expression cannot be called");
                Type::Unknown
            }
        }
    }

    /// Types arguments when the callee is already in error.
    pub(super) fn args_only(&mut self, args: &[Argument]) {
        for a in args {
            self.expr(&a.value);
        }
    }

    /// `E(args)`: instantiation of an extern, parser, control or package.
    pub(super) fn constructor_call(
        &mut self,
        span: Span,
        ty: &Type,
        targs: &[Type],
        args: &[Argument],
    ) -> Type {
        if let Type::Stack(elem, n) = ty {
            // `E[n](args) x;`: n instances built alike.
            let inst = self.constructor_call(span, elem, targs, args);
            return Type::Stack(Box::new(inst), *n);
        }
        let Type::Named { id, args: given } = ty else {
            if !matches!(ty, Type::Unknown) {
                let shown = self.show(ty);
                self.error(span, format!("type `{shown}` cannot be instantiated"));
            }
            self.args_only(args);
            return Type::Unknown;
        };
        let id = &self.block_overload(*id, args);
        let Some(def) = self.types.get(*id).cloned() else {
            return Type::Unknown;
        };
        let type_args: Vec<Type> = if !targs.is_empty() {
            targs.to_vec()
        } else {
            given.clone()
        };
        if !type_args.is_empty() && type_args.len() != def.type_params.len() {
            self.error(
                span,
                format!(
                    "type `{}` takes {}, {} given",
                    def.name,
                    counted(def.type_params.len(), "type argument"),
                    type_args.len()
                ),
            );
        }
        let (params, kind) = match &def.kind {
            TypeDefKind::Extern => {
                let ctors: Vec<Rc<Callable>> = self
                    .methods
                    .get(id)
                    .map(|ms| {
                        ms.iter()
                            .filter(|m| m.kind == CallableKind::Constructor)
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                if ctors.is_empty() {
                    // Without a constructor an extern is only ever received
                    // as a parameter (like `packet_in`), never instantiated.
                    self.error(span, format!("extern `{}` has no constructor", def.name));
                }
                let inferable = ctors.iter().any(|c| {
                    c.params
                        .iter()
                        .any(|p| def.type_params.iter().any(|v| mentions(&p.ty, v)))
                });
                if type_args.is_empty() && !def.type_params.is_empty() && !inferable {
                    self.error(span, format!("extern `{}` needs type arguments", def.name));
                }
                if ctors.is_empty() {
                    return Type::Named {
                        id: *id,
                        args: type_args,
                    };
                }
                // Constructors are generic in the extern's type parameters.
                let generic: Vec<Rc<Callable>> = ctors
                    .iter()
                    .map(|c| {
                        let mut c = specialize(c, &def.type_params, &type_args);
                        if type_args.is_empty() {
                            c.type_params = def.type_params.clone();
                        }
                        c.ret = Type::Named {
                            id: *id,
                            args: if type_args.is_empty() {
                                def.type_params
                                    .iter()
                                    .map(|p| Type::Var(p.clone()))
                                    .collect()
                            } else {
                                type_args.clone()
                            },
                        };
                        Rc::new(c)
                    })
                    .collect();
                let instance = self.overloaded_call(
                    span,
                    &def.name,
                    &generic,
                    &[],
                    args,
                    Binding::AllArguments,
                );
                self.constructor_args_known(args);
                return instance;
            }
            TypeDefKind::Block {
                block: super::BlockKind::Package,
                ..
            } => (def.params.clone(), CallableKind::Constructor),
            TypeDefKind::Block { is_decl: true, .. } => {
                (def.ctor_params.clone(), CallableKind::Constructor)
            }
            _ => {
                self.error(span, format!("type `{}` cannot be instantiated", def.name));
                self.args_only(args);
                return Type::Unknown;
            }
        };
        let generic = type_args.is_empty() && !def.type_params.is_empty();
        let callable = Callable {
            name: def.name.clone(),
            kind,
            type_params: if generic {
                def.type_params.clone()
            } else {
                Vec::new()
            },
            params: params
                .iter()
                .map(|p| ParamSig {
                    ty: subst(&p.ty, &def.type_params, &type_args),
                    ..p.clone()
                })
                .collect(),
            ret: Type::Named {
                id: *id,
                args: if generic {
                    def.type_params
                        .iter()
                        .map(|p| Type::Var(p.clone()))
                        .collect()
                } else {
                    type_args.clone()
                },
            },
            optional: false,
            decl: def.span,
        };
        let arg_types: Vec<Type> = args.iter().map(|a| self.expr(&a.value)).collect();
        let instance = self.checked_call(
            span,
            &callable,
            &[],
            args,
            &arg_types,
            Binding::AllArguments,
        );
        self.constructor_args_known(args);
        instance
    }

    /// Among block types overloaded on one name, the one whose parameters
    /// fit the arguments (else `id` itself).
    fn block_overload(&self, id: TypeId, args: &[Argument]) -> TypeId {
        let Some(def) = self.types.get(id) else {
            return id;
        };
        let Some(candidates) = self.block_overloads.get(&def.name).filter(|c| c.len() > 1) else {
            return id;
        };
        let fits = |cand: &TypeId| {
            self.types.get(*cand).is_some_and(|d| {
                let c = Callable {
                    name: d.name.clone(),
                    kind: CallableKind::Constructor,
                    type_params: Vec::new(),
                    params: d.params.clone(),
                    ret: Type::Void,
                    optional: false,
                    decl: d.span,
                };
                arity_fits(&c, args, Binding::AllArguments)
            })
        };
        candidates.iter().copied().find(fits).unwrap_or(id)
    }

    /// Picks the overload matching the arguments' number and names.
    pub(super) fn overloaded_call(
        &mut self,
        span: Span,
        name: &str,
        candidates: &[Rc<Callable>],
        targs: &[Type],
        args: &[Argument],
        binding: Binding,
    ) -> Type {
        let arg_types: Vec<Type> = args.iter().map(|a| self.expr(&a.value)).collect();
        let fitting: Vec<&Rc<Callable>> = candidates
            .iter()
            .filter(|c| arity_fits(c, args, binding))
            .collect();
        match fitting.as_slice() {
            [one] => {
                let one = Rc::clone(one);
                self.checked_call(span, &one, targs, args, &arg_types, binding)
            }
            [] => {
                let counts: Vec<String> = candidates
                    .iter()
                    .map(|c| c.params.len().to_string())
                    .collect();
                self.error(
                    span,
                    format!(
                        "no `{name}` takes {} (it takes {})",
                        counted(args.len(), "argument"),
                        counts.join(" or ")
                    ),
                );
                Type::Unknown
            }
            [first, ..] => {
                // Several fit by arity: the one whose types fit too.
                let typed: Vec<&&Rc<Callable>> = fitting
                    .iter()
                    .filter(|c| {
                        c.params.iter().zip(&arg_types).all(|(p, t)| {
                            c.type_params.iter().any(|v| mentions(&p.ty, v))
                                || self.types.convertible(t, &p.ty)
                        })
                    })
                    .collect();
                if let [a, b, ..] = typed.as_slice() {
                    if a.kind == b.kind && same_params(a, b) {
                        self.error(
                            span,
                            format!("call of `{name}` is ambiguous between overloads"),
                        );
                        return Type::Unknown;
                    }
                }
                let pick = typed.first().copied().unwrap_or(first);
                let pick = Rc::clone(pick);
                self.checked_call(span, &pick, targs, args, &arg_types, binding)
            }
        }
    }

    /// Checks arguments against one signature; returns the result type.
    pub(super) fn checked_call(
        &mut self,
        span: Span,
        callable: &Callable,
        targs: &[Type],
        args: &[Argument],
        arg_types: &[Type],
        binding: Binding,
    ) -> Type {
        let Some(matched) = self.match_args(span, callable, args, binding) else {
            return Type::Unknown;
        };
        let vars = &callable.type_params;
        let mut bound: Vec<Option<Type>> = vec![None; vars.len()];
        if !targs.is_empty() {
            if targs.len() != vars.len() {
                self.error(
                    span,
                    format!(
                        "`{}` takes {}, {} given",
                        callable.name,
                        counted(vars.len(), "type argument"),
                        targs.len()
                    ),
                );
                return Type::Unknown;
            }
            bound = targs.iter().map(|t| Some(t.clone())).collect();
        } else {
            for (param_index, arg_index) in &matched {
                let (Some(p), Some(t)) =
                    (callable.params.get(*param_index), arg_types.get(*arg_index))
                else {
                    continue;
                };
                if !unify(&self.types, &p.ty, t, vars, &mut bound) {
                    let shown = self.show(t);
                    self.error(
                        args.get(*arg_index).map_or(span, |a| a.span),
                        format!("argument `{}` of `{}`: type `{shown}` conflicts with an earlier argument", p.name, callable.name),
                    );
                    return Type::Unknown;
                }
            }
        }
        if targs.is_empty()
            && !matches!(
                callable.kind,
                CallableKind::Constructor | CallableKind::Action
            )
        {
            if let Some(i) = bound.iter().position(|b| b.as_ref() == Some(&Type::InfInt)) {
                let var = vars.get(i).cloned().unwrap_or_default();
                self.error(span, format!("cannot infer a width for type argument `{var}` of `{}` from an `int` value", callable.name));
                return Type::Unknown;
            }
        }
        if targs.is_empty()
            && !matches!(
                callable.kind,
                CallableKind::Constructor | CallableKind::Action
            )
        {
            for (param_index, arg_index) in &matched {
                let (Some(p), Some(t)) =
                    (callable.params.get(*param_index), arg_types.get(*arg_index))
                else {
                    continue;
                };
                // An argument that is `_` (or made of `_` only) tells no
                // type; a lone initializer does not either.
                let untyped = match &p.ty {
                    Type::Var(_) => matches!(t, Type::StructExpr(_)) || only_dont_care(t),
                    _ => only_dont_care(t),
                };
                let unbound = vars
                    .iter()
                    .zip(&bound)
                    .find(|(v, b)| b.is_none() && mentions(&p.ty, v));
                if let (true, Some((v, _))) = (untyped, unbound) {
                    self.error(
                        span,
                        format!("cannot infer type argument `{v}` of `{}`", callable.name),
                    );
                    return Type::Unknown;
                }
            }
        }
        if targs.is_empty() && !arg_types.contains(&Type::Unknown) {
            // A parameter left out passes its default (whose type must be
            // known) or, when only `@optional`, nothing.
            let given: Vec<&Type> = callable
                .params
                .iter()
                .enumerate()
                .filter(|(i, p)| !p.has_default || matched.iter().any(|(m, _)| m == i))
                .map(|(_, p)| &p.ty)
                .collect();
            let is_package = matches!(
                self.types.kind(&callable.ret),
                Some(TypeDefKind::Block {
                    block: super::BlockKind::Package,
                    ..
                })
            );
            if let Some(v) = unbound_type_var(callable, vars, &given, is_package) {
                self.error(
                    span,
                    format!(
                        "cannot infer type argument `{v}` of `{}`: no argument determines it",
                        callable.name
                    ),
                );
                return Type::Unknown;
            }
        }
        if callable.kind == CallableKind::Function {
            if let Some(Some(obj)) = bound
                .iter()
                .find(|b| b.as_ref().is_some_and(|t| self.is_object_type(t)))
            {
                let shown = self.show(obj);
                self.error(
                    span,
                    format!(
                        "`{}` cannot take `{shown}` as a type argument",
                        callable.name
                    ),
                );
                return Type::Unknown;
            }
        }
        let actual: Vec<Type> = bound
            .into_iter()
            .map(|b| b.unwrap_or(Type::Unknown))
            .collect();
        for (param_index, arg_index) in matched {
            let (Some(p), Some(a)) = (callable.params.get(param_index), args.get(arg_index)) else {
                continue;
            };
            let pty = subst(&p.ty, vars, &actual);
            self.check_argument(callable, p, &pty, &a.value);
        }
        let kind = match callable.kind {
            CallableKind::Function => CallKind::Function,
            CallableKind::Action => CallKind::Action,
            CallableKind::ExternFunction => CallKind::ExternFunction,
            CallableKind::Method | CallableKind::AbstractMethod => CallKind::Method,
            CallableKind::Constructor => CallKind::Constructor,
        };
        let ret = subst(&callable.ret, vars, &actual);
        self.last_call = Some((
            span,
            CallInfo {
                kind,
                decl: callable.decl,
                type_args: actual,
            },
        ));
        ret
    }

    fn check_argument(&mut self, callable: &Callable, p: &ParamSig, pty: &Type, arg: &Expr) {
        let what = format!("argument `{}` of `{}`", p.name, callable.name);
        if matches!(
            self.type_of(arg.id),
            Type::Table(_) | Type::State | Type::Callable | Type::ApplyResult(_)
        ) {
            let text = self.unit.slice(arg.span).to_string();
            self.error(arg.span, format!("{what}: `{text}` is not a value"));
            return;
        }
        match p.direction {
            Some(Direction::Out | Direction::InOut) => {
                if matches!(arg.kind, ExprKind::DontCare) {
                    return;
                }
                if !self.is_lvalue(arg) {
                    self.error(
                        arg.span,
                        format!("{what} is `out`/`inout` and needs a value that can be written"),
                    );
                    return;
                }
                let at = self.type_of(arg.id);
                if !self.types.same(&at, pty) {
                    let (sa, sp) = (self.show(&at), self.show(pty));
                    self.error(
                        arg.span,
                        format!(
                            "{what} is `out`/`inout` and must have type `{sp}` exactly, not `{sa}`"
                        ),
                    );
                }
            }
            _ => self.coerce(arg, pty, &what),
        }
    }

    /// Pairs (parameter index, argument index); reports missing, unknown
    /// and surplus arguments.
    fn match_args(
        &mut self,
        span: Span,
        callable: &Callable,
        args: &[Argument],
        binding: Binding,
    ) -> Option<Vec<(usize, usize)>> {
        let named = args.iter().any(|a| a.name.is_some());
        let mut pairs = Vec::new();
        if named {
            for (ai, a) in args.iter().enumerate() {
                // Mixed and repeated names are structural errors reported
                // elsewhere; such a call just has no type.
                let Some(n) = &a.name else { return None };
                match callable.params.iter().position(|p| p.name == n.name) {
                    Some(pi) if pairs.iter().any(|(q, _)| *q == pi) => return None,
                    Some(pi) => pairs.push((pi, ai)),
                    None => {
                        self.error(
                            n.span,
                            format!("`{}` has no parameter `{}`", callable.name, n.name),
                        );
                        return None;
                    }
                }
            }
        } else {
            if args.len() > callable.params.len() {
                self.error(
                    span,
                    format!(
                        "`{}` takes {} arguments, {} given",
                        callable.name,
                        callable.params.len(),
                        args.len()
                    ),
                );
                return None;
            }
            pairs = (0..args.len()).map(|i| (i, i)).collect();
        }
        for (pi, p) in callable.params.iter().enumerate() {
            let given = pairs.iter().any(|(q, _)| *q == pi);
            let may_skip =
                p.optional || (binding == Binding::ControlPlaneTail && p.direction.is_none());
            if !given && !may_skip {
                self.error(
                    span,
                    format!("missing argument `{}` of `{}`", p.name, callable.name),
                );
                return None;
            }
        }
        Some(pairs)
    }
}

fn arity_fits(c: &Callable, args: &[Argument], binding: Binding) -> bool {
    if args.iter().any(|a| a.name.is_some()) {
        let names_ok = args.iter().all(|a| {
            a.name
                .as_ref()
                .is_some_and(|n| c.params.iter().any(|p| p.name == n.name))
        });
        let required_ok = c.params.iter().all(|p| {
            p.optional
                || (binding == Binding::ControlPlaneTail && p.direction.is_none())
                || args
                    .iter()
                    .any(|a| a.name.as_ref().is_some_and(|n| n.name == p.name))
        });
        return names_ok && required_ok;
    }
    let required = c
        .params
        .iter()
        .filter(|p| !(p.optional || binding == Binding::ControlPlaneTail && p.direction.is_none()))
        .count();
    args.len() <= c.params.len() && args.len() >= required
}

/// A type variable of `callable` that nothing can bind: no parameter
/// given (or defaulted) mentions it. Functions and packages take their
/// type arguments from their arguments only (spec 8.17); a generic parser
/// or control may also get them from the type its instance is expected to
/// have, which this checker does not follow (it stays lenient there).
fn unbound_type_var<'v>(
    callable: &Callable,
    vars: &'v [String],
    given: &[&Type],
    is_package: bool,
) -> Option<&'v String> {
    let context_may_bind = match callable.kind {
        CallableKind::Constructor => !is_package,
        CallableKind::Function | CallableKind::ExternFunction => false,
        _ => return None,
    };
    vars.iter().find(|v| {
        let only_optional = callable
            .params
            .iter()
            .any(|p| p.optional && !p.has_default && mentions(&p.ty, v));
        let bindable = given.iter().any(|t| mentions(t, v))
            || only_optional
            || (context_may_bind && mentions(&callable.ret, v));
        !bindable
    })
}

/// `_`, or a list of nothing but `_`s: a value that carries no type.
fn only_dont_care(ty: &Type) -> bool {
    match ty {
        Type::DontCare => true,
        Type::ListExpr(items) => !items.is_empty() && items.iter().all(only_dont_care),
        _ => false,
    }
}

/// Whether type variable `var` occurs in `ty`.
fn mentions(ty: &Type, var: &str) -> bool {
    match ty {
        Type::Var(v) => v == var,
        Type::Named { args, .. } | Type::Tuple(args) => args.iter().any(|a| mentions(a, var)),
        Type::Stack(e, _) | Type::List(e) => mentions(e, var),
        _ => false,
    }
}

/// Two overloads no call could tell apart: same parameter types and
/// directions.
fn same_params(a: &Callable, b: &Callable) -> bool {
    a.params.len() == b.params.len()
        && a.params
            .iter()
            .zip(&b.params)
            .all(|(p, q)| p.direction == q.direction && p.ty == q.ty)
}

/// A method signature with its extern's type arguments substituted.
pub(super) fn specialize(m: &Callable, outer: &[String], args: &[Type]) -> Callable {
    Callable {
        params: m
            .params
            .iter()
            .map(|p| ParamSig {
                ty: subst(&p.ty, outer, args),
                ..p.clone()
            })
            .collect(),
        ret: subst(&m.ret, outer, args),
        ..m.clone()
    }
}
