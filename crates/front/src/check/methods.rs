//! Methods: those of extern instances (resolved like other calls), `apply`
//! of tables, parsers and controls, and the built-in methods of headers,
//! unions and stacks (`isValid`, `setValid`, `push_front`, ...) and of
//! every type (`minSizeInBits`, ...), with the rules `packet_in`'s
//! `extract` and `lookahead` and `static_assert` add.

use super::calls::{specialize, Binding};
use super::consteval::{int_value, Value};
use super::env::{Callable, CallableKind};
use super::expr::{is_header_method, is_size_method};
use super::types::{subst, ParamSig, Type, TypeDefKind};
use super::Checker;
use crate::ast::{Argument, Expr, Ident};
use crate::source::Span;
use num_bigint::BigInt;
use std::rc::Rc;

impl Checker<'_> {
    pub(super) fn method_call(
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
            let bits = match name.starts_with("max") {
                true => self.max_width_of(&ty),
                false => self.types.width_of(&ty),
            };
            if let Some(bits) = bits {
                let value = if name.ends_with("Bytes") {
                    bits.div_ceil(8)
                } else {
                    bits
                };
                self.values
                    .insert(e.id, int_value(BigInt::from(value), &Type::InfInt));
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
                    self.error(
                        e.span,
                        "a table cannot be applied inside an action or function",
                    );
                }
                Type::ApplyResult(*i)
            }
            Type::Stack(..) => {
                if !self.is_lvalue(base) {
                    self.error(
                        base.span,
                        format!("`{name}` needs a header stack that can be written"),
                    );
                }
                if args.len() != 1 {
                    self.error(
                        e.span,
                        format!("`{name}` takes one argument, {} given", args.len()),
                    );
                    self.args_only(args);
                } else if let Some(a) = args.first() {
                    self.const_int(&a.value, &format!("argument of `{name}`"));
                    self.coerce(&a.value, &Type::InfInt, "count");
                }
                Type::Void
            }
            Type::Named {
                id,
                args: type_args,
            } => match self.types.get(*id).map(|d| d.kind.clone()) {
                Some(TypeDefKind::Header { .. } | TypeDefKind::HeaderUnion { .. })
                    if is_header_method(name) =>
                {
                    self.no_args(e.span, name, args);
                    if name == "isValid" {
                        return Type::Bool;
                    }
                    if self.types.is_union(base_ty) {
                        self.error(
                            member.span,
                            format!("`{name}` is not a method of a header union"),
                        );
                    } else if !self.is_lvalue(base) {
                        self.error(
                            base.span,
                            format!("`{name}` needs a header that can be written"),
                        );
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
                        self.error(
                            member.span,
                            format!("extern `{shown}` has no method `{name}`"),
                        );
                        self.args_only(args);
                        return Type::Unknown;
                    }
                    let outer = self
                        .types
                        .get(*id)
                        .map(|d| d.type_params.clone())
                        .unwrap_or_default();
                    // An instance whose type arguments were never given
                    // (a generic extern as a parameter type) is lenient.
                    let type_args: Vec<Type> = match type_args.is_empty() {
                        true => vec![Type::Unknown; outer.len()],
                        false => type_args.clone(),
                    };
                    let specialized: Vec<Rc<Callable>> = methods
                        .iter()
                        .map(|m| Rc::new(specialize(m, &outer, &type_args)))
                        .collect();
                    let ret = self.overloaded_call(
                        e.span,
                        name,
                        &specialized,
                        targs,
                        args,
                        Binding::AllArguments,
                    );
                    if self.types.get(*id).is_some_and(|d| d.name == "packet_in") {
                        if name == "extract" {
                            self.check_extract(args);
                        } else if name == "lookahead" && self.has_varbit(&ret) {
                            let shown = self.show(&ret);
                            self.error(
                                e.span,
                                format!("`lookahead` needs a fixed-size type, not `{shown}`"),
                            );
                        }
                    }
                    ret
                }
                Some(TypeDefKind::Block { block, .. })
                    if name == "apply" && block != super::BlockKind::Package =>
                {
                    self.block_apply_placement(e, block);
                    let Some(def) = self.types.get(*id) else {
                        return Type::Unknown;
                    };
                    let type_args: Vec<Type> = match type_args.is_empty() {
                        true => vec![Type::Unknown; def.type_params.len()],
                        false => type_args.clone(),
                    };
                    let params: Vec<ParamSig> = def
                        .params
                        .iter()
                        .map(|p| ParamSig {
                            ty: subst(&p.ty, &def.type_params, &type_args),
                            ..p.clone()
                        })
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
                    self.checked_call(
                        e.span,
                        &callable,
                        targs,
                        args,
                        &arg_types,
                        Binding::AllArguments,
                    )
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

    /// `static_assert(cond[, message])` fails when `cond` is known false,
    /// and cannot test what is only known at run time.
    pub(super) fn static_assert(&mut self, e: &Expr, args: &[Argument]) {
        let Some(cond) = args.first() else { return };
        let known = self.values.contains_key(&cond.value.id);
        if !known && self.runtime_value(&cond.value) {
            self.error(
                e.span,
                "`static_assert` needs a condition known at compile time",
            );
        }
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
            self.error(
                first.value.span,
                format!("`extract` needs a header, not `{shown}`"),
            );
        } else if args.len() == 1 && self.has_varbit(&ty) {
            let shown = self.show(&ty);
            self.error(
                first.value.span,
                format!("`extract` of `{shown}`, which has a `varbit` field, needs a size"),
            );
        } else if self.types.fields(&ty).is_some_and(|fs| {
            fs.iter()
                .filter(|(_, t)| matches!(t, Type::Varbit(_)))
                .count()
                > 1
        }) {
            let shown = self.show(&ty);
            self.error(
                first.value.span,
                format!("`extract` of `{shown}`: a header can have only one `varbit` field"),
            );
        } else if args.len() == 2 && !self.has_varbit(&ty) {
            let shown = self.show(&ty);
            self.error(
                first.value.span,
                format!(
                    "`extract` with a size needs a header with a `varbit` field, not `{shown}`"
                ),
            );
        }
    }

    fn extern_has_method(&self, ty: &Type, name: &str) -> bool {
        let Type::Named { id, .. } = ty else {
            return false;
        };
        self.methods
            .get(id)
            .is_some_and(|ms| ms.iter().any(|m| m.name == name))
    }

    pub(super) fn has_varbit(&self, ty: &Type) -> bool {
        match ty {
            Type::Varbit(_) => true,
            Type::Stack(e, _) => self.has_varbit(e),
            _ => self
                .types
                .fields(ty)
                .is_some_and(|fs| fs.iter().any(|(_, t)| self.has_varbit(t))),
        }
    }

    /// The width of `ty` with each varbit at its maximum (`maxSizeInBits`).
    fn max_width_of(&self, ty: &Type) -> Option<u64> {
        match ty {
            Type::Varbit(w) => Some(u64::from(*w)),
            Type::Stack(e, n) => self
                .max_width_of(e)
                .map(|w| w.saturating_mul(u64::from(*n))),
            Type::Named { .. } => match self.types.kind(ty)? {
                TypeDefKind::Header { .. } | TypeDefKind::Struct { .. } => {
                    let fields = self.types.fields(ty)?;
                    fields.iter().map(|(_, t)| self.max_width_of(t)).sum()
                }
                TypeDefKind::HeaderUnion { .. } => {
                    let fields = self.types.fields(ty)?;
                    fields
                        .iter()
                        .map(|(_, t)| self.max_width_of(t))
                        .max()
                        .flatten()
                }
                _ => self.types.width_of(ty),
            },
            _ => self.types.width_of(ty),
        }
    }

    fn no_args(&mut self, span: Span, name: &str, args: &[Argument]) {
        if !args.is_empty() {
            self.error(
                span,
                format!("`{name}` takes no arguments, {} given", args.len()),
            );
            self.args_only(args);
        }
    }
}

impl Checker<'_> {
    /// A parser runs only from a parser state and a control only from a
    /// control's `apply` block (spec 12.10, 13.6): not from actions or
    /// functions, and not across kinds.
    fn block_apply_placement(&mut self, e: &Expr, block: super::BlockKind) {
        let (kind, allowed, place) = match block {
            super::BlockKind::Parser => ("parser", self.ctx.in_parser, "a parser state"),
            _ => ("control", self.ctx.in_control, "a control's `apply` block"),
        };
        if self.ctx.body.is_some() || !allowed {
            self.error(e.span, format!("a {kind} can only be applied from {place}"));
        }
    }
}
