//! Declarations: each enters the scope with its type or signature (types
//! as written are resolved by [`super::typeref`]).
//!
//! Enum values and constants must be compile-time known; they are
//! evaluated here through the expression checker. Bodies of functions,
//! actions, parsers and controls are checked where they are declared, so
//! every name they use must be declared before (as P4_16 requires).

use super::consteval::Value;
use super::env::{Callable, CallableKind, Symbol, ValueRole, ValueSym};
use super::types::{ParamSig, Type, TypeDef, TypeDefKind};
use super::{Checker, Context};
use crate::ast::{self, DeclKind, Direction, TypeRef, TypedefTarget};
use std::rc::Rc;

impl Checker<'_> {
    /// Declares one declaration in the current scope, checking its body.
    pub(super) fn decl(&mut self, decl: &ast::Decl) {
        match &decl.kind {
            DeclKind::Constant { ty, name, value } => self.constant_decl(ty, name, value),
            DeclKind::Variable { ty, name, init } => self.variable_decl(ty, name, init.as_ref()),
            DeclKind::Instance {
                ty,
                args,
                name,
                initializer,
            } => self.instance_decl(ty, args, name, initializer.as_deref(), decl.span),
            DeclKind::Header {
                name,
                type_params,
                fields,
            } => self.structured_decl(name, type_params, fields, StructKind::Header),
            DeclKind::HeaderUnion {
                name,
                type_params,
                fields,
            } => self.structured_decl(name, type_params, fields, StructKind::Union),
            DeclKind::Struct {
                name,
                type_params,
                fields,
            } => self.structured_decl(name, type_params, fields, StructKind::Struct),
            DeclKind::Enum {
                name,
                underlying,
                members,
            } => self.enum_decl(name, underlying.as_ref(), members),
            DeclKind::Error { members } => {
                for m in members {
                    if !self.errors.contains(&m.name) {
                        self.errors.push(m.name.clone());
                    }
                }
            }
            DeclKind::MatchKind { members } => {
                for m in members {
                    if !self.match_kinds.contains(&m.name) {
                        self.match_kinds.push(m.name.clone());
                    }
                    let value = Value::Member {
                        ty: "match_kind".into(),
                        member: m.name.clone(),
                    };
                    self.declare_value(m, Type::MatchKind, false, Some(value), ValueRole::Constant);
                }
            }
            DeclKind::Typedef { target, name } => {
                let ty = self.typedef_target(target);
                self.scopes.declare(&name.name, Symbol::Type(ty));
            }
            DeclKind::NewType { target, name } => {
                if let TypedefTarget::Type(t) = target {
                    self.reject_dont_care(t, "the definition of a type");
                }
                let base = self.typedef_target(target);
                let new_type_base = matches!(self.types.kind(&base), Some(TypeDefKind::NewType(_)));
                if !new_type_base
                    && !matches!(
                        base,
                        Type::Bit(_) | Type::Int(_) | Type::Bool | Type::Unknown
                    )
                {
                    let shown = self.show(&base);
                    self.error(
                        name.span,
                        format!("type `{}` cannot be based on `{shown}`", name.name),
                    );
                }
                self.new_type_def(name, Vec::new(), TypeDefKind::NewType(base));
            }
            DeclKind::ExternType {
                name,
                type_params,
                methods,
            } => self.extern_decl(name, type_params, methods),
            DeclKind::ExternFunction { return_type, sig } => {
                self.callable_decl(sig, Some(return_type), CallableKind::ExternFunction, None)
            }
            DeclKind::Function {
                return_type,
                sig,
                body,
            } => self.callable_decl(sig, Some(return_type), CallableKind::Function, Some(body)),
            DeclKind::Action { sig, body } => {
                self.callable_decl(sig, None, CallableKind::Action, Some(body))
            }
            DeclKind::ParserType { sig } => self.block_type_decl(sig, super::BlockKind::Parser),
            DeclKind::ControlType { sig } => self.block_type_decl(sig, super::BlockKind::Control),
            DeclKind::PackageType { sig } => self.block_type_decl(sig, super::BlockKind::Package),
            DeclKind::Parser {
                sig,
                ctor_params,
                locals,
                states,
            } => self.parser_decl(sig, ctor_params, locals, states),
            DeclKind::Control {
                sig,
                ctor_params,
                locals,
                apply,
            } => self.control_decl(sig, ctor_params, locals, apply),
            DeclKind::Table { name, properties } => self.table_decl(name, properties),
            DeclKind::ValueSet { elem, size, name } => {
                let elem_ty = self.resolve_type(elem);
                if matches!(elem_ty, Type::InfInt | Type::String | Type::Varbit(_))
                    || self.is_object_type(&elem_ty)
                {
                    let shown = self.show(&elem_ty);
                    self.error(elem.span, format!("a value set cannot hold `{shown}`"));
                }
                self.const_int(size, "value set size");
                let ty = Type::ValueSet(Box::new(elem_ty));
                self.declare_value(name, ty, false, None, ValueRole::ValueSet);
            }
        }
    }

    pub(super) fn declare_value(
        &mut self,
        name: &ast::Ident,
        ty: Type,
        writable: bool,
        value: Option<Value>,
        role: ValueRole,
    ) {
        self.decl_types.insert(name.span, ty.clone());
        let sym = ValueSym {
            ty,
            writable,
            value,
            decl: name.span,
            role,
        };
        self.scopes.declare(&name.name, Symbol::Value(sym));
    }

    fn constant_decl(&mut self, ty: &TypeRef, name: &ast::Ident, value: &ast::Expr) {
        self.reject_dont_care(ty, "the type of a constant");
        let ty = self.resolve_type(ty);
        // Constants are values; objects are instantiated, not assigned.
        if self.is_object_type(&ty) {
            let shown = self.show(&ty);
            self.error(
                name.span,
                format!("constant `{}` cannot have type `{shown}`", name.name),
            );
        }
        let value_ty = self.expr(value);
        self.coerce(value, &ty, "constant initializer");
        let known = self.values.get(&value.id).cloned();
        // An initializer already reported as wrong has no value either;
        // saying so again would only repeat the first error.
        let already_reported = matches!(value_ty, Type::Unknown);
        if known.is_none() && !already_reported && self.runtime_value(value) {
            self.error(
                value.span,
                format!(
                    "initializer of constant `{}` is not compile-time known",
                    name.name
                ),
            );
        }
        self.declare_value(name, ty, false, known, ValueRole::Constant);
    }

    fn variable_decl(&mut self, ty: &TypeRef, name: &ast::Ident, init: Option<&ast::Expr>) {
        self.reject_dont_care(ty, "the type of a variable");
        let ty = self.resolve_type(ty);
        if matches!(ty, Type::String | Type::Void) || self.is_object_type(&ty) {
            let shown = self.show(&ty);
            self.error(
                name.span,
                format!("variable `{}` cannot have type `{shown}`", name.name),
            );
        }
        if let Some(init) = init {
            self.expr(init);
            self.coerce(init, &ty, "initializer");
        }
        self.declare_value(name, ty, true, None, ValueRole::Variable);
    }

    fn typedef_target(&mut self, target: &TypedefTarget) -> Type {
        match target {
            TypedefTarget::Type(t) => self.resolve_type(t),
            TypedefTarget::Decl(d) => {
                self.decl(d);
                match d.name() {
                    Some(n) => self
                        .scopes
                        .lookup_type(&n.name, false)
                        .cloned()
                        .unwrap_or(Type::Unknown),
                    None => Type::Unknown,
                }
            }
        }
    }

    /// Adds a nominal type and declares its name.
    pub(super) fn new_type_def(
        &mut self,
        name: &ast::Ident,
        type_params: Vec<String>,
        kind: TypeDefKind,
    ) -> Type {
        let id = self.types.add(TypeDef {
            name: name.name.clone(),
            kind,
            type_params,
            params: Vec::new(),
            ctor_params: Vec::new(),
            span: name.span,
        });
        let ty = Type::Named {
            id,
            args: Vec::new(),
        };
        self.scopes.declare(&name.name, Symbol::Type(ty.clone()));
        ty
    }

    /// `@match(k)` on a field names a declared match kind.
    fn match_annotation_kind(&mut self, annotations: &[ast::Annotation]) {
        for a in annotations.iter().filter(|a| a.name.name == "match") {
            let ast::AnnotationBody::Expressions(args) = &a.body else {
                continue;
            };
            if let [ast::Expr {
                kind: ast::ExprKind::Path(p),
                span,
                ..
            }] = args.as_slice()
            {
                if !self.match_kinds.contains(&p.name.name) {
                    self.error(*span, format!("`{}` is not a match kind", p.name.name));
                }
            }
        }
    }

    fn structured_decl(
        &mut self,
        name: &ast::Ident,
        type_params: &[ast::Ident],
        fields: &[ast::Field],
        kind: StructKind,
    ) {
        let params: Vec<String> = type_params.iter().map(|p| p.name.clone()).collect();
        // Declared first so a self-reference resolves to it (and is refused).
        let placeholder = match kind {
            StructKind::Header => TypeDefKind::Header { fields: Vec::new() },
            StructKind::Union => TypeDefKind::HeaderUnion { fields: Vec::new() },
            StructKind::Struct => TypeDefKind::Struct { fields: Vec::new() },
        };
        let me = self.new_type_def(name, params.clone(), placeholder);
        let resolved: Vec<(String, super::Type)> = self.with_type_params(&params, |c| {
            fields
                .iter()
                .map(|f| {
                    let ty = c.resolve_type(&f.ty);
                    // A type containing itself would have no size (and
                    // would make every walk over its fields endless).
                    if super::typeref::mentions_type(&ty, &me) {
                        c.error(
                            f.name.span,
                            format!("field `{}` contains the type being declared", f.name.name),
                        );
                        return (f.name.name.clone(), Type::Unknown);
                    }
                    c.check_field_type(kind, &f.name, &ty);
                    c.match_annotation_kind(&f.annotations);
                    (f.name.name.clone(), ty)
                })
                .collect()
        });
        let Type::Named { id, .. } = me else { return };
        if let Some(def) = self.types.get_mut(id) {
            def.kind = match kind {
                StructKind::Header => TypeDefKind::Header { fields: resolved },
                StructKind::Union => TypeDefKind::HeaderUnion { fields: resolved },
                StructKind::Struct => TypeDefKind::Struct { fields: resolved },
            };
        }
    }

    pub(super) fn check_field_type(&mut self, kind: StructKind, field: &ast::Ident, ty: &Type) {
        let ok = match kind {
            StructKind::Header => self.header_field_ok(ty),
            StructKind::Union => {
                matches!(ty, Type::Unknown | Type::Var(_)) || self.types.is_header(ty)
            }
            StructKind::Struct => {
                !matches!(
                    ty,
                    Type::Void | Type::Table(_) | Type::State | Type::Callable | Type::ValueSet(_)
                ) && !self.is_object_type(ty)
            }
        };
        if !ok {
            let shown = self.show(ty);
            let what = match kind {
                StructKind::Header => "a header",
                StructKind::Union => "a header union",
                StructKind::Struct => "a struct",
            };
            self.error(
                field.span,
                format!(
                    "field `{}` of {what} cannot have type `{shown}`",
                    field.name
                ),
            );
        }
    }

    fn header_field_ok(&self, ty: &Type) -> bool {
        match ty {
            Type::Stack(elem, _) => self.header_field_ok(elem),
            Type::Bit(_)
            | Type::Int(_)
            | Type::Varbit(_)
            | Type::Bool
            | Type::Unknown
            | Type::Var(_) => true,
            Type::Named { .. } => match self.types.kind(ty) {
                Some(TypeDefKind::NewType(t)) => self.header_field_ok(t),
                Some(TypeDefKind::Enum { underlying, .. }) => underlying.is_some(),
                Some(TypeDefKind::Struct { .. }) => self
                    .types
                    .fields(ty)
                    .is_some_and(|fs| fs.iter().all(|(_, t)| self.header_field_ok(t))),
                _ => false,
            },
            _ => false,
        }
    }

    fn enum_decl(
        &mut self,
        name: &ast::Ident,
        underlying: Option<&TypeRef>,
        members: &[ast::EnumMember],
    ) {
        let under = underlying.map(|t| self.resolve_type(t));
        if let Some(u) = &under {
            if !matches!(u, Type::Bit(_) | Type::Int(_) | Type::Unknown) {
                let shown = self.show(u);
                self.error(name.span, format!("serializable enum `{}` must be based on `bit<W>` or `int<W>`, not `{shown}`", name.name));
            }
        }
        let names = members
            .iter()
            .map(|m| (m.name.name.clone(), None))
            .collect();
        let ty = self.new_type_def(
            name,
            Vec::new(),
            TypeDefKind::Enum {
                underlying: under.clone(),
                members: names,
            },
        );
        let Type::Named { id, .. } = ty else { return };
        // Values may refer to the members declared before them by name.
        self.scopes.push();
        for (i, m) in members.iter().enumerate() {
            let value = match (&m.value, &under) {
                (Some(v), Some(u)) => {
                    self.expr(v);
                    self.coerce(v, u, "enum member value");
                    let known = self.const_of(v);
                    if known.is_none() {
                        self.error(
                            v.span,
                            format!(
                                "value of enum member `{}` is not compile-time known",
                                m.name.name
                            ),
                        );
                    }
                    known
                }
                (Some(v), None) => {
                    self.error(
                        v.span,
                        format!(
                            "member `{}` of a plain enum cannot have a value",
                            m.name.name
                        ),
                    );
                    None
                }
                (None, Some(_)) => {
                    self.error(
                        m.name.span,
                        format!(
                            "member `{}` of a serializable enum needs a value",
                            m.name.name
                        ),
                    );
                    None
                }
                (None, None) => None,
            };
            if let (Some(v), Some(u)) = (&value, &under) {
                let as_value = Value::Int {
                    value: v.clone(),
                    ty: u.clone(),
                };
                self.declare_value(
                    &m.name,
                    ty.clone(),
                    false,
                    Some(as_value),
                    ValueRole::Constant,
                );
            }
            if let Some(TypeDefKind::Enum { members, .. }) =
                self.types.get_mut(id).map(|d| &mut d.kind)
            {
                if let Some(slot) = members.get_mut(i) {
                    slot.1 = value;
                }
            }
        }
        self.scopes.pop();
    }

    fn extern_decl(
        &mut self,
        name: &ast::Ident,
        type_params: &[ast::Ident],
        methods: &[ast::Method],
    ) {
        let params: Vec<String> = type_params.iter().map(|p| p.name.clone()).collect();
        // `extern E;` declares the name first; the full declaration then
        // completes that same type.
        let forward = match self.scopes.lookup_type(&name.name, false) {
            Some(Type::Named { id, .. }) if self.forward_externs.contains(id) => Some(*id),
            _ => None,
        };
        let id = match forward {
            Some(id) => id,
            None => match self.new_type_def(name, params.clone(), TypeDefKind::Extern) {
                Type::Named { id, .. } => id,
                _ => return,
            },
        };
        if methods.is_empty() {
            self.forward_externs.push(id);
        } else {
            self.forward_externs.retain(|f| *f != id);
        }
        let sigs: Vec<Rc<Callable>> = self.with_type_params(&params, |c| {
            methods
                .iter()
                .map(|m| {
                    let kind = match m.kind {
                        ast::MethodKind::Constructor => CallableKind::Constructor,
                        ast::MethodKind::Method => CallableKind::Method,
                        ast::MethodKind::Abstract => CallableKind::AbstractMethod,
                    };
                    if kind != CallableKind::Constructor && m.sig.name.name == name.name {
                        c.error(
                            m.sig.name.span,
                            format!(
                                "method `{}` has the name of its extern type",
                                m.sig.name.name
                            ),
                        );
                    }
                    if let Some(r) = &m.return_type {
                        c.reject_dont_care(r, "a return type");
                    }
                    let mut sig = c.signature(&m.sig, m.return_type.as_ref(), kind);
                    c.check_signature_types(&sig);
                    let own = Type::Named {
                        id,
                        args: Vec::new(),
                    };
                    if let Some(p) = sig
                        .params
                        .iter()
                        .find(|p| super::typeref::mentions_type(&p.ty, &own))
                    {
                        c.error(
                            p.span,
                            format!(
                                "a method of `{}` cannot take a `{}` parameter",
                                name.name, name.name
                            ),
                        );
                    }
                    sig.optional = m.annotations.iter().any(|a| a.name.name == "optional");
                    Rc::new(sig)
                })
                .collect()
        });
        self.methods.insert(id, sigs);
    }

    /// Builds a signature; the caller has the enclosing type parameters in
    /// scope already.
    pub(super) fn signature(
        &mut self,
        sig: &ast::Signature,
        ret: Option<&TypeRef>,
        kind: CallableKind,
    ) -> Callable {
        let tparams: Vec<String> = sig.type_params.iter().map(|p| p.name.clone()).collect();
        let (params, ret) = self.with_type_params(&tparams, |c| {
            let params = c.param_sigs(&sig.params);
            let ret = ret.map_or(Type::Void, |r| c.resolve_type(r));
            (params, ret)
        });
        Callable {
            name: sig.name.name.clone(),
            kind,
            type_params: tparams,
            params,
            ret,
            optional: false,
            decl: sig.name.span,
        }
    }

    /// Return and parameter types a method or function cannot have.
    pub(super) fn check_signature_types(&mut self, sig: &Callable) {
        // Extern functions and methods may return objects (factories).
        let may_return_object = matches!(
            sig.kind,
            CallableKind::ExternFunction | CallableKind::Method
        );
        if !may_return_object && self.is_object_type(&sig.ret) {
            let shown = self.show(&sig.ret);
            self.error(sig.decl, format!("`{}` cannot return `{shown}`", sig.name));
        }
        if sig.ret == Type::InfInt && !may_return_object {
            self.error(sig.decl, format!("`{}` cannot return `int`", sig.name));
        }
        // Actions take data (spec 7.2.12, 14.1), no objects (`int` is the
        // structural rules' to refuse). Functions may take externs;
        // parsers and controls are refused below.
        if sig.kind == CallableKind::Action {
            for p in &sig.params {
                if self.is_object_type(&p.ty) {
                    let shown = self.show(&p.ty);
                    self.error(
                        p.span,
                        format!(
                            "parameter `{}` of `{}` cannot have type `{shown}`",
                            p.name, sig.name
                        ),
                    );
                }
            }
        }
        // Parsers, controls and packages are passed only to the
        // constructors of parsers, controls and packages (spec 7.2.12).
        for p in &sig.params {
            if matches!(self.types.kind(&p.ty), Some(TypeDefKind::Block { .. })) {
                let shown = self.show(&p.ty);
                self.error(
                    p.span,
                    format!("parameter `{}` of `{}` cannot have type `{shown}`: only parsers, controls and packages take parsers, controls or packages", p.name, sig.name),
                );
            }
        }
    }

    /// Externs, parsers, controls and packages: objects, not values.
    pub(super) fn is_object_type(&self, ty: &Type) -> bool {
        matches!(
            self.types.kind(ty),
            Some(TypeDefKind::Extern | TypeDefKind::Block { .. })
        )
    }

    pub(super) fn param_sigs(&mut self, params: &[ast::Param]) -> Vec<ParamSig> {
        params
            .iter()
            .map(|p| {
                let ty = self.resolve_type(&p.ty);
                // Objects and strings are passed only as directionless parameters.
                if p.direction.is_some() && (ty == Type::String || self.is_object_type(&ty)) {
                    let shown = self.show(&ty);
                    self.error(p.name.span, format!("parameter `{}` with a direction cannot have type `{shown}`", p.name.name));
                }
                if let Some(d) = &p.default {
                    // `...` stands for the type's default value (spec 7.3),
                    // which lists and objects do not have.
                    let no_default = matches!(ty, Type::List(_)) || self.is_object_type(&ty);
                    if matches!(d.kind, ast::ExprKind::DefaultValue) && no_default {
                        let shown = self.show(&ty);
                        self.error(d.span, format!("`...`: type `{shown}` of `{}` has no default value", p.name.name));
                    }
                    self.expr(d);
                    self.coerce(d, &ty, "default value");
                    if !self.values.contains_key(&d.id) && self.runtime_value(d) {
                        self.error(d.span, format!("default value of `{}` must be compile-time known", p.name.name));
                    }
                }
                if matches!(self.types.kind(&ty), Some(TypeDefKind::Block { is_decl: true, .. })) {
                    let shown = self.show(&ty);
                    self.error(p.ty.span, format!("`{shown}` is a declared block, not a type a parameter can have (use its parser or control type)"));
                }
                let optional = p.default.is_some() || p.annotations.iter().any(|a| a.name.name == "optional");
                ParamSig { name: p.name.name.clone(), direction: p.direction, ty, optional, has_default: p.default.is_some(), span: p.name.span }
            })
            .collect()
    }

    /// Declares parameters as values in the current scope.
    pub(super) fn declare_params(&mut self, params: &[ParamSig], bound: bool) {
        for p in params {
            let writable = matches!(p.direction, Some(Direction::Out | Direction::InOut));
            let role = if bound || p.direction.is_none() {
                ValueRole::BoundParameter
            } else {
                ValueRole::Parameter
            };
            let ident = ast::Ident {
                name: p.name.clone(),
                span: p.span,
            };
            self.declare_value(&ident, p.ty.clone(), writable, None, role);
        }
    }

    fn callable_decl(
        &mut self,
        sig: &ast::Signature,
        ret: Option<&TypeRef>,
        kind: CallableKind,
        body: Option<&ast::Block>,
    ) {
        if let Some(r) = ret {
            self.reject_dont_care(r, "a return type");
        }
        let callable = Rc::new(self.signature(sig, ret, kind));
        self.check_signature_types(&callable);
        self.scopes
            .declare(&sig.name.name, Symbol::Callables(vec![callable.clone()]));
        let Some(body) = body else { return };
        let ctx = Context {
            return_type: Some(callable.ret.clone()),
            in_control: self.ctx.in_control,
            in_parser: self.ctx.in_parser,
            body: Some(kind),
            this_type: self.ctx.this_type.clone(),
        };
        self.scoped(ctx, |c| {
            for t in &callable.type_params {
                c.scopes.declare(t, Symbol::Type(Type::Var(t.clone())));
            }
            c.declare_params(&callable.params, false);
            c.block(body);
        });
    }

    fn block_type_decl(&mut self, sig: &ast::Signature, block: super::BlockKind) {
        let tparams: Vec<String> = sig.type_params.iter().map(|p| p.name.clone()).collect();
        let params = self.with_type_params(&tparams, |c| c.param_sigs(&sig.params));
        let ty = self.new_type_def(
            &sig.name,
            tparams,
            TypeDefKind::Block {
                block,
                is_decl: false,
            },
        );
        if let Type::Named { id, .. } = ty {
            if let Some(def) = self.types.get_mut(id) {
                def.params = params;
            }
            self.block_overloads
                .entry(sig.name.name.clone())
                .or_default()
                .push(id);
        }
    }

    /// Whether an expression reads something only known at run time
    /// (a variable, a parameter, a call other than a size method).
    /// Constructor arguments are evaluated when the program is compiled
    /// (spec 10.3, instantiations), so none may need a packet's values.
    pub(super) fn constructor_args_known(&mut self, args: &[ast::Argument]) {
        for a in args {
            // The target may evaluate an extern function of known arguments
            // while building the instance (a hash algorithm chooser, say).
            let value = &a.value;
            let runtime = match (&value.kind, self.calls.get(&value.id).map(|c| c.kind)) {
                (ast::ExprKind::Call { args, .. }, Some(super::CallKind::ExternFunction)) => {
                    args.iter().any(|a| self.runtime_value(&a.value))
                }
                _ => self.runtime_value(value),
            };
            if runtime {
                self.error(
                    a.value.span,
                    "a constructor argument must be known at compile time",
                );
            }
        }
    }

    pub(super) fn runtime_value(&self, e: &ast::Expr) -> bool {
        use ast::ExprKind as K;
        match &e.kind {
            // An instantiation (or a factory making an object) is evaluated
            // at compile time, from arguments that must be known then too.
            K::Call { args, .. } if self.is_object_type(&self.type_of(e.id)) => {
                args.iter().any(|a| self.runtime_value(&a.value))
            }
            K::Call { callee, .. } => match &callee.kind {
                K::Member { member, .. } => !super::expr::is_size_method(&member.name),
                K::Path(p) => p.name.name != "static_assert",
                _ => true,
            },
            K::Path(_) => matches!(
                self.refs.get(&e.id).map(|r| r.kind),
                Some(super::RefKind::Variable | super::RefKind::Parameter)
            ),
            K::Member { base, .. } => self.runtime_value(base),
            K::Index { base, index } => self.runtime_value(base) || self.runtime_value(index),
            K::Slice { base, .. } => self.runtime_value(base),
            K::Unary { operand, .. } => self.runtime_value(operand),
            K::Binary { lhs, rhs, .. } => self.runtime_value(lhs) || self.runtime_value(rhs),
            K::Cast { expr, .. } => self.runtime_value(expr),
            K::Ternary { cond, then, other } => {
                self.runtime_value(cond) || self.runtime_value(then) || self.runtime_value(other)
            }
            _ => false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum StructKind {
    Header,
    Union,
    Struct,
}
