//! Calls: functions, actions, extern functions and methods, constructors,
//! `apply`, and the built-in methods of headers, unions and stacks.
//!
//! Overloads are chosen by arity and argument names. Type arguments are
//! either written or inferred by unifying parameter types with argument
//! types; a variable nothing binds stays [`Type::Unknown`] (lenient, never
//! an error). `out`/`inout` arguments must be l-values of exactly the
//! parameter type; `in` and directionless arguments get implicit casts.

use super::consteval::{int_value, Value};
use super::env::{Callable, CallableKind, Symbol};
use super::expr::{is_header_method, is_size_method};
use super::types::{subst, unify, ParamSig, Type, TypeDefKind, TypeId};
use super::{CallInfo, CallKind, Checker};
use crate::ast::{Argument, Direction, Expr, ExprKind, Ident, TypeRef};
use crate::source::Span;
use num_bigint::BigInt;
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
    pub(super) fn call_expr(&mut self, e: &Expr, callee: &Expr, type_args: &[TypeRef], args: &[Argument]) -> Type {
        let ty = self.dispatch_call(e, callee, type_args, args);
        // `checked_call` leaves what it resolved; built-in methods do not.
        let info = match self.last_call.take() {
            Some((span, info)) if span == e.span => Some(info),
            _ if matches!(callee.kind, ExprKind::Member { .. }) && !matches!(ty, Type::Unknown) => {
                Some(CallInfo { kind: CallKind::Builtin, decl: Span::default(), type_args: Vec::new() })
            }
            _ => None,
        };
        if let Some(info) = info {
            self.calls.insert(e.id, info);
        }
        ty
    }

    fn dispatch_call(&mut self, e: &Expr, callee: &Expr, type_args: &[TypeRef], args: &[Argument]) -> Type {
        let targs: Vec<Type> = type_args.iter().map(|t| self.resolve_type(t)).collect();
        if let Some(t) = type_args.iter().zip(&targs).find(|(_, ty)| matches!(ty, Type::Void)) {
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
                        let list = if inner.iter().any(|c| arity_fits(c, args, Binding::AllArguments)) {
                            inner
                        } else {
                            self.scopes.callables(&path.name.name, path.top_level)
                        };
                        self.expr(callee);
                        let is_action = list.iter().all(|c| c.kind == CallableKind::Action);
                        if is_action && (self.ctx.body == Some(CallableKind::Function) || self.ctx.in_parser) {
                            self.error(e.span, format!("action `{}` can only be called from a control or an action", path.name.name));
                        }
                        let ret = self.overloaded_call(e.span, &path.name.name, &list, &targs, args, Binding::AllArguments);
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
                            self.error(callee.span, format!("`{}` cannot be called", path.name.name));
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
    fn args_only(&mut self, args: &[Argument]) {
        for a in args {
            self.expr(&a.value);
        }
    }

    fn method_call(
        &mut self,
        e: &Expr,
        base: &Expr,
        base_ty: &Type,
        member: &Ident,
        targs: &[Type],
        args: &[Argument],
    ) -> Type {
        let name = member.name.as_str();
        if is_size_method(name) && !self.extern_has_method(base_ty, name) {
            self.no_args(e.span, name, args);
            let ty = match base_ty {
                Type::TypeName(t) => (**t).clone(),
                t => t.clone(),
            };
            if let Some(bits) = self.types.width_of(&ty) {
                let value = if name.ends_with("Bytes") { bits.div_ceil(8) } else { bits };
                if name.starts_with("min") || !self.has_varbit(&ty) {
                    self.values.insert(e.id, int_value(BigInt::from(value), &Type::InfInt));
                }
            }
            return Type::InfInt;
        }
        // `C.apply(...)` on a declared parser or control: a direct call.
        let direct;
        let base_ty = match base_ty {
            Type::TypeName(t) if name == "apply" => {
                direct = (**t).clone();
                &direct
            }
            _ => base_ty,
        };
        match base_ty {
            Type::Table(i) => {
                self.no_args(e.span, name, args);
                if self.ctx.body.is_some() {
                    self.error(e.span, "a table cannot be applied inside an action or function");
                }
                Type::ApplyResult(*i)
            }
            Type::Stack(..) => {
                if !self.is_lvalue(base) {
                    self.error(base.span, format!("`{name}` needs a header stack that can be written"));
                }
                if args.len() != 1 {
                    self.error(e.span, format!("`{name}` takes one argument, {} given", args.len()));
                    self.args_only(args);
                } else if let Some(a) = args.first() {
                    self.const_int(&a.value, &format!("argument of `{name}`"));
                    self.coerce(&a.value, &Type::InfInt, "count");
                }
                Type::Void
            }
            Type::Named { id, args: type_args } => match self.types.get(*id).map(|d| d.kind.clone()) {
                Some(TypeDefKind::Header { .. } | TypeDefKind::HeaderUnion { .. }) if is_header_method(name) => {
                    self.no_args(e.span, name, args);
                    if name == "isValid" {
                        return Type::Bool;
                    }
                    if self.types.is_union(base_ty) {
                        self.error(member.span, format!("`{name}` is not a method of a header union"));
                    } else if !self.is_lvalue(base) {
                        self.error(base.span, format!("`{name}` needs a header that can be written"));
                    }
                    Type::Void
                }
                Some(TypeDefKind::Extern) => {
                    let methods: Vec<Rc<Callable>> = self
                        .methods
                        .get(id)
                        .map(|ms| {
                            ms.iter()
                                .filter(|m| m.name == name && m.kind != CallableKind::Constructor)
                                .cloned()
                                .collect()
                        })
                        .unwrap_or_default();
                    if methods.is_empty() {
                        let shown = self.show(base_ty);
                        self.error(member.span, format!("extern `{shown}` has no method `{name}`"));
                        self.args_only(args);
                        return Type::Unknown;
                    }
                    let outer = self.types.get(*id).map(|d| d.type_params.clone()).unwrap_or_default();
                    let specialized: Vec<Rc<Callable>> =
                        methods.iter().map(|m| Rc::new(specialize(m, &outer, type_args))).collect();
                    let ret = self.overloaded_call(e.span, name, &specialized, targs, args, Binding::AllArguments);
                    if self.types.get(*id).is_some_and(|d| d.name == "packet_in") {
                        if name == "extract" {
                            self.check_extract(args);
                        } else if name == "lookahead" && self.has_varbit(&ret) {
                            let shown = self.show(&ret);
                            self.error(e.span, format!("`lookahead` needs a fixed-size type, not `{shown}`"));
                        }
                    }
                    ret
                }
                Some(TypeDefKind::Block { block, .. }) if name == "apply" && block != super::BlockKind::Package => {
                    let Some(def) = self.types.get(*id) else { return Type::Unknown };
                    let params: Vec<ParamSig> = def
                        .params
                        .iter()
                        .map(|p| ParamSig { ty: subst(&p.ty, &def.type_params, type_args), ..p.clone() })
                        .collect();
                    let callable = Callable {
                        name: "apply".into(),
                        kind: CallableKind::Method,
                        type_params: Vec::new(),
                        params,
                        ret: Type::Void,
                        optional: false,
                        decl: def.span,
                    };
                    let arg_types: Vec<Type> = args.iter().map(|a| self.expr(&a.value)).collect();
                    self.checked_call(e.span, &callable, targs, args, &arg_types, Binding::AllArguments)
                }
                _ => {
                    let shown = self.show(base_ty);
                    self.error(member.span, format!("`{shown}` has no method `{name}`"));
                    self.args_only(args);
                    Type::Unknown
                }
            },
            _ => {
                let shown = self.show(base_ty);
                self.error(member.span, format!("`{shown}` has no method `{name}`"));
                self.args_only(args);
                Type::Unknown
            }
        }
    }

    /// `static_assert(cond[, message])` fails when `cond` is known false.
    fn static_assert(&mut self, e: &Expr, args: &[Argument]) {
        let Some(cond) = args.first() else { return };
        if let Some(Value::Bool(false)) = self.values.get(&cond.value.id) {
            let message = match args.get(1).and_then(|m| self.values.get(&m.value.id)) {
                Some(Value::String(s)) => format!("static assertion failed: {s}"),
                _ => "static assertion failed".to_string(),
            };
            self.error(e.span, message);
        }
        if let Some(v @ Value::Bool(_)) = self.values.get(&cond.value.id).cloned() {
            self.values.insert(e.id, v);
        }
    }

    /// `packet_in.extract` takes a header; its two-argument form a header
    /// with a `varbit` field.
    fn check_extract(&mut self, args: &[Argument]) {
        let Some(first) = args.first() else { return };
        let ty = self.type_of(first.value.id);
        if matches!(ty, Type::Unknown | Type::Var(_) | Type::DontCare) {
            return;
        }
        if !self.types.is_header(&ty) {
            let shown = self.show(&ty);
            self.error(first.value.span, format!("`extract` needs a header, not `{shown}`"));
        } else if args.len() == 1 && self.has_varbit(&ty) {
            let shown = self.show(&ty);
            self.error(first.value.span, format!("`extract` of `{shown}`, which has a `varbit` field, needs a size"));
        } else if self.types.fields(&ty).is_some_and(|fs| fs.iter().filter(|(_, t)| matches!(t, Type::Varbit(_))).count() > 1) {
            let shown = self.show(&ty);
            self.error(first.value.span, format!("`extract` of `{shown}`: a header can have only one `varbit` field"));
        } else if args.len() == 2 && !self.has_varbit(&ty) {
            let shown = self.show(&ty);
            self.error(first.value.span, format!("`extract` with a size needs a header with a `varbit` field, not `{shown}`"));
        }
    }

    fn extern_has_method(&self, ty: &Type, name: &str) -> bool {
        let Type::Named { id, .. } = ty else { return false };
        self.methods.get(id).is_some_and(|ms| ms.iter().any(|m| m.name == name))
    }

    fn has_varbit(&self, ty: &Type) -> bool {
        match ty {
            Type::Varbit(_) => true,
            Type::Stack(e, _) => self.has_varbit(e),
            _ => self.types.fields(ty).is_some_and(|fs| fs.iter().any(|(_, t)| self.has_varbit(t))),
        }
    }

    fn no_args(&mut self, span: Span, name: &str, args: &[Argument]) {
        if !args.is_empty() {
            self.error(span, format!("`{name}` takes no arguments, {} given", args.len()));
            self.args_only(args);
        }
    }

    /// `E(args)`: instantiation of an extern, parser, control or package.
    pub(super) fn constructor_call(&mut self, span: Span, ty: &Type, targs: &[Type], args: &[Argument]) -> Type {
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
        let Some(def) = self.types.get(*id).cloned() else { return Type::Unknown };
        let type_args: Vec<Type> = if !targs.is_empty() { targs.to_vec() } else { given.clone() };
        if !type_args.is_empty() && type_args.len() != def.type_params.len() {
            self.error(
                span,
                format!("type `{}` takes {} type arguments, {} given", def.name, def.type_params.len(), type_args.len()),
            );
        }
        let (params, kind) = match &def.kind {
            TypeDefKind::Extern => {
                let ctors: Vec<Rc<Callable>> = self
                    .methods
                    .get(id)
                    .map(|ms| ms.iter().filter(|m| m.kind == CallableKind::Constructor).cloned().collect())
                    .unwrap_or_default();
                if ctors.is_empty() && !args.is_empty() {
                    self.error(span, format!("extern `{}` has no constructor", def.name));
                }
                let inferable = ctors.iter().any(|c| {
                    c.params.iter().any(|p| def.type_params.iter().any(|v| mentions(&p.ty, v)))
                });
                if type_args.is_empty() && !def.type_params.is_empty() && !inferable {
                    self.error(span, format!("extern `{}` needs type arguments", def.name));
                }
                if ctors.is_empty() {
                    return Type::Named { id: *id, args: type_args };
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
                                def.type_params.iter().map(|p| Type::Var(p.clone())).collect()
                            } else {
                                type_args.clone()
                            },
                        };
                        Rc::new(c)
                    })
                    .collect();
                return self.overloaded_call(span, &def.name, &generic, &[], args, Binding::AllArguments);
            }
            TypeDefKind::Block { block: super::BlockKind::Package, .. } => (def.params.clone(), CallableKind::Constructor),
            TypeDefKind::Block { is_decl: true, .. } => (def.ctor_params.clone(), CallableKind::Constructor),
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
            type_params: if generic { def.type_params.clone() } else { Vec::new() },
            params: params
                .iter()
                .map(|p| ParamSig { ty: subst(&p.ty, &def.type_params, &type_args), ..p.clone() })
                .collect(),
            ret: Type::Named {
                id: *id,
                args: if generic {
                    def.type_params.iter().map(|p| Type::Var(p.clone())).collect()
                } else {
                    type_args.clone()
                },
            },
            optional: false,
            decl: def.span,
        };
        let arg_types: Vec<Type> = args.iter().map(|a| self.expr(&a.value)).collect();
        self.checked_call(span, &callable, &[], args, &arg_types, Binding::AllArguments)
    }

    /// Among block types overloaded on one name, the one whose parameters
    /// fit the arguments (else `id` itself).
    fn block_overload(&self, id: TypeId, args: &[Argument]) -> TypeId {
        let Some(def) = self.types.get(id) else { return id };
        let Some(candidates) = self.block_overloads.get(&def.name).filter(|c| c.len() > 1) else { return id };
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
        let fitting: Vec<&Rc<Callable>> = candidates.iter().filter(|c| arity_fits(c, args, binding)).collect();
        match fitting.as_slice() {
            [one] => {
                let one = Rc::clone(one);
                self.checked_call(span, &one, targs, args, &arg_types, binding)
            }
            [] => {
                let counts: Vec<String> = candidates.iter().map(|c| c.params.len().to_string()).collect();
                self.error(
                    span,
                    format!("no `{name}` takes these {} arguments (it takes {})", args.len(), counts.join(" or ")),
                );
                Type::Unknown
            }
            [first, ..] => {
                // Several fit by arity: the one whose types fit too.
                let typed: Vec<&&Rc<Callable>> = fitting
                    .iter()
                    .filter(|c| {
                        c.params.iter().zip(&arg_types).all(|(p, t)| {
                            c.type_params.iter().any(|v| mentions(&p.ty, v)) || self.types.convertible(t, &p.ty)
                        })
                    })
                    .collect();
                if let [a, b, ..] = typed.as_slice() {
                    if a.kind == b.kind && same_params(a, b) {
                        self.error(span, format!("call of `{name}` is ambiguous between overloads"));
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
        let Some(matched) = self.match_args(span, callable, args, binding) else { return Type::Unknown };
        let vars = &callable.type_params;
        let mut bound: Vec<Option<Type>> = vec![None; vars.len()];
        if !targs.is_empty() {
            if targs.len() != vars.len() {
                self.error(
                    span,
                    format!("`{}` takes {} type arguments, {} given", callable.name, vars.len(), targs.len()),
                );
                return Type::Unknown;
            }
            bound = targs.iter().map(|t| Some(t.clone())).collect();
        } else {
            for (param_index, arg_index) in &matched {
                let (Some(p), Some(t)) = (callable.params.get(*param_index), arg_types.get(*arg_index)) else {
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
        if targs.is_empty() && !matches!(callable.kind, CallableKind::Constructor | CallableKind::Action) {
            if let Some(i) = bound.iter().position(|b| b.as_ref() == Some(&Type::InfInt)) {
                let var = vars.get(i).cloned().unwrap_or_default();
                self.error(span, format!("cannot infer a width for type argument `{var}` of `{}` from an `int` value", callable.name));
                return Type::Unknown;
            }
        }
        if targs.is_empty() && !matches!(callable.kind, CallableKind::Constructor | CallableKind::Action) {
            for (param_index, arg_index) in &matched {
                let (Some(p), Some(t)) = (callable.params.get(*param_index), arg_types.get(*arg_index)) else {
                    continue;
                };
                let Type::Var(v) = &p.ty else { continue };
                let unbound = vars.iter().position(|x| x == v).is_some_and(|i| bound.get(i).is_some_and(|b| b.is_none()));
                if unbound && matches!(t, Type::StructExpr(_) | Type::DontCare) {
                    self.error(span, format!("cannot infer type argument `{v}` of `{}`", callable.name));
                    return Type::Unknown;
                }
            }
        }
        if callable.kind == CallableKind::Function {
            if let Some(Some(obj)) = bound.iter().find(|b| b.as_ref().is_some_and(|t| self.is_object_type(t))) {
                let shown = self.show(obj);
                self.error(span, format!("`{}` cannot take `{shown}` as a type argument", callable.name));
                return Type::Unknown;
            }
        }
        let actual: Vec<Type> = bound.into_iter().map(|b| b.unwrap_or(Type::Unknown)).collect();
        for (param_index, arg_index) in matched {
            let (Some(p), Some(a)) = (callable.params.get(param_index), args.get(arg_index)) else { continue };
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
        self.last_call = Some((span, CallInfo { kind, decl: callable.decl, type_args: actual }));
        ret
    }

    fn check_argument(&mut self, callable: &Callable, p: &ParamSig, pty: &Type, arg: &Expr) {
        let what = format!("argument `{}` of `{}`", p.name, callable.name);
        if matches!(self.type_of(arg.id), Type::Table(_) | Type::State | Type::Callable | Type::ApplyResult(_)) {
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
                    self.error(arg.span, format!("{what} is `out`/`inout` and needs a value that can be written"));
                    return;
                }
                let at = self.type_of(arg.id);
                if !self.types.same(&at, pty) {
                    let (sa, sp) = (self.show(&at), self.show(pty));
                    self.error(arg.span, format!("{what}: `{sa}` is not `{sp}`"));
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
                        self.error(n.span, format!("`{}` has no parameter `{}`", callable.name, n.name));
                        return None;
                    }
                }
            }
        } else {
            if args.len() > callable.params.len() {
                self.error(
                    span,
                    format!("`{}` takes {} arguments, {} given", callable.name, callable.params.len(), args.len()),
                );
                return None;
            }
            pairs = (0..args.len()).map(|i| (i, i)).collect();
        }
        for (pi, p) in callable.params.iter().enumerate() {
            let given = pairs.iter().any(|(q, _)| *q == pi);
            let may_skip = p.optional || (binding == Binding::ControlPlaneTail && p.direction.is_none());
            if !given && !may_skip {
                self.error(span, format!("missing argument `{}` of `{}`", p.name, callable.name));
                return None;
            }
        }
        Some(pairs)
    }
}

fn arity_fits(c: &Callable, args: &[Argument], binding: Binding) -> bool {
    if args.iter().any(|a| a.name.is_some()) {
        let names_ok = args
            .iter()
            .all(|a| a.name.as_ref().is_some_and(|n| c.params.iter().any(|p| p.name == n.name)));
        let required_ok = c.params.iter().all(|p| {
            p.optional
                || (binding == Binding::ControlPlaneTail && p.direction.is_none())
                || args.iter().any(|a| a.name.as_ref().is_some_and(|n| n.name == p.name))
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
        && a.params.iter().zip(&b.params).all(|(p, q)| p.direction == q.direction && p.ty == q.ty)
}

/// A method signature with its extern's type arguments substituted.
fn specialize(m: &Callable, outer: &[String], args: &[Type]) -> Callable {
    Callable {
        params: m.params.iter().map(|p| ParamSig { ty: subst(&p.ty, outer, args), ..p.clone() }).collect(),
        ret: subst(&m.ret, outer, args),
        ..m.clone()
    }
}

