//! Parsers, controls, tables and instantiations: the block-level rules.
//!
//! A parser's states may name each other before they are declared, so all
//! state names enter the parser's scope first. Select and table keysets are
//! checked against the types of the select expressions / table keys. A
//! table's actions list is read before its other properties, which refer
//! to it (`default_action`, `entries`, `switch` on `action_run`).

use super::calls::Binding;
use super::consteval::Value;
use super::env::{Callable, CallableKind, Symbol, ValueRole};
use super::types::{subst, BlockKind, ParamSig, Type, TypeDef, TypeDefKind};
use super::{Checker, Context, TableInfo};
use crate::ast::{
    self, Argument, Decl, DeclKind, Expr, ExprKind, ParserState, TableProperty, TablePropertyKind,
    Transition,
};
use crate::source::Span;
use num_bigint::BigInt;
use std::rc::Rc;

impl Checker<'_> {
    /// Declares a parser or control type for a declared block.
    fn block_decl_type(
        &mut self,
        sig: &ast::Signature,
        ctor: &[ast::Param],
        block: BlockKind,
    ) -> (Vec<ParamSig>, Vec<ParamSig>) {
        let tparams: Vec<String> = sig.type_params.iter().map(|p| p.name.clone()).collect();
        let (params, ctor_params) = self.with_type_params(&tparams, |c| {
            (c.param_sigs(&sig.params), c.param_sigs(ctor))
        });
        let id = self.types.add(TypeDef {
            name: sig.name.name.clone(),
            kind: TypeDefKind::Block {
                block,
                is_decl: true,
            },
            type_params: tparams,
            params: params.clone(),
            ctor_params: ctor_params.clone(),
            span: sig.name.span,
        });
        self.scopes.declare(
            &sig.name.name,
            Symbol::Type(Type::Named {
                id,
                args: Vec::new(),
            }),
        );
        (params, ctor_params)
    }

    /// Declares what a parser's or control's body sees before its states or
    /// `apply`: type parameters, constructor and apply parameters, locals.
    fn declare_block_header(
        &mut self,
        sig: &ast::Signature,
        params: &[ParamSig],
        ctor_params: &[ParamSig],
        locals: &[Decl],
    ) {
        self.declare_type_params(sig);
        self.declare_params(ctor_params, true);
        self.declare_params(params, false);
        for l in locals {
            self.decl(l);
        }
    }

    pub(super) fn parser_decl(
        &mut self,
        sig: &ast::Signature,
        ctor: &[ast::Param],
        locals: &[Decl],
        states: &[ParserState],
    ) {
        let (params, ctor_params) = self.block_decl_type(sig, ctor, BlockKind::Parser);
        let ctx = Context {
            in_parser: true,
            ..Context::default()
        };
        self.scoped(ctx, |c| {
            c.declare_block_header(sig, &params, &ctor_params, locals);
            for s in states {
                c.scopes.declare(&s.name.name, Symbol::State(s.name.span));
            }
            for s in states {
                c.parser_state(s);
            }
        });
    }

    fn parser_state(&mut self, state: &ParserState) {
        let ctx = self.ctx.clone();
        self.scoped(ctx, |c| {
            for s in &state.stmts {
                c.stmt(s);
            }
            match &state.transition {
                Some(Transition::Direct(path)) => c.state_target(path),
                Some(Transition::Select { exprs, cases, .. }) => {
                    let mut types: Vec<Type> = exprs.iter().map(|e| c.expr(e)).collect();
                    // `select({a, b})` selects on a and b.
                    if let [Type::ListExpr(items) | Type::Tuple(items)] = types.as_slice() {
                        types = items.clone();
                    }
                    // A varbit has no fixed width to match keysets against.
                    if let Some(i) = types.iter().position(|t| matches!(t, Type::Varbit(_))) {
                        let at = exprs
                            .get(i)
                            .or(exprs.first())
                            .map_or(state.name.span, |e| e.span);
                        c.error(at, "cannot select on a `varbit` value");
                    }
                    for e in exprs {
                        let t = c.type_of(e.id);
                        if matches!(
                            c.types.kind(&t),
                            Some(TypeDefKind::Struct { .. } | TypeDefKind::Header { .. })
                        ) {
                            let shown = c.show(&t);
                            c.error(
                                e.span,
                                format!("cannot select on a value of type `{shown}`"),
                            );
                        }
                    }
                    for case in cases {
                        c.keyset(&case.keyset, &types, "select");
                        c.state_target(&case.state);
                    }
                }
                None => {}
            }
        });
    }

    fn declare_type_params(&mut self, sig: &ast::Signature) {
        for p in &sig.type_params {
            self.scopes
                .declare(&p.name, Symbol::Type(Type::Var(p.name.clone())));
        }
    }

    fn state_target(&mut self, path: &ast::Path) {
        let name = &path.name.name;
        match self.scopes.lookup(name, path.top_level) {
            Some(Symbol::State(_)) => {}
            None if name == "accept" || name == "reject" => {}
            Some(_) => self.error(path.span, format!("`{name}` is not a parser state")),
            None => self.error(path.span, format!("state `{name}` is not declared")),
        }
    }

    /// Checks a keyset (select case or table entry) against key types.
    pub(super) fn keyset(&mut self, keyset: &Expr, types: &[Type], what: &str) {
        match (&keyset.kind, types) {
            (ExprKind::Default | ExprKind::DontCare, _) => {
                self.expr(keyset);
            }
            (ExprKind::List(items), [_, _, ..]) | (ExprKind::List(items), []) => {
                // `...` stands for all the remaining keys, so it comes last.
                let all_but_last = items.split_last().map_or(&[][..], |(_, rest)| rest);
                if let Some(dots) = all_but_last
                    .iter()
                    .find(|i| matches!(i.kind, ExprKind::DefaultValue))
                {
                    self.error(
                        dots.span,
                        format!("`...` must be the last element of a {what} keyset"),
                    );
                }
                if items.len() != types.len() {
                    self.error(
                        keyset.span,
                        format!(
                            "{what} keyset has {} elements but there are {} keys",
                            items.len(),
                            types.len()
                        ),
                    );
                    self.expr(keyset);
                    return;
                }
                for (item, ty) in items.iter().zip(types) {
                    self.keyset_element(item, ty);
                }
                let tys: Vec<Type> = types.to_vec();
                self.set_type(keyset.id, &Type::Keyset(Box::new(Type::Tuple(tys))));
            }
            (ExprKind::List(items), [ty]) if items.len() == 1 => {
                if let Some(item) = items.first() {
                    self.keyset_element(item, ty);
                }
            }
            (ExprKind::List(_), [ty]) => {
                self.expr(keyset);
                let shown = self.show(ty);
                self.error(
                    keyset.span,
                    format!("{what} keyset is a tuple but the key has the single type `{shown}`"),
                );
            }
            (_, [ty]) => self.keyset_element(keyset, ty),
            (_, _) => {
                let t = self.expr(keyset);
                if !matches!(t, Type::ValueSet(_) | Type::Unknown) {
                    self.error(
                        keyset.span,
                        format!("{what} keyset needs {} elements", types.len()),
                    );
                }
            }
        }
    }

    fn keyset_element(&mut self, e: &Expr, ty: &Type) {
        if let (ExprKind::List(_), Type::ListExpr(items) | Type::Tuple(items)) = (&e.kind, ty) {
            self.keyset(e, &items.clone(), "nested");
            return;
        }
        let t = self.expr(e);
        match &t {
            Type::DontCare | Type::Unknown => {}
            Type::ValueSet(inner) if self.types.is_struct(inner) => {}
            Type::Keyset(inner) | Type::ValueSet(inner) => {
                if let ExprKind::Mask { value: a, mask: b } | ExprKind::Range { lo: a, hi: b } =
                    &e.kind
                {
                    for operand in [a, b] {
                        if !self.values.contains_key(&operand.id) && self.runtime_value(operand) {
                            self.error(operand.span, "a keyset must be compile-time known");
                        }
                    }
                }
                let (a, b) = (
                    self.types.representation(inner),
                    self.types.representation(ty),
                );
                if !self.types.convertible(&a, &b) && !self.types.convertible(&b, &a) {
                    let (si, st) = (self.show(inner), self.show(ty));
                    self.error(
                        e.span,
                        format!("keyset of type `{si}` does not match key of type `{st}`"),
                    );
                } else if matches!(**inner, Type::InfInt) {
                    self.retype_keyset(e, ty);
                }
            }
            _ => {
                self.coerce(e, ty, "keyset");
                // Locals are accepted: the reference compiler propagates
                // their constant values first.
                let call = matches!(e.kind, ExprKind::Call { .. });
                if call && !self.values.contains_key(&e.id) && self.runtime_value(e) {
                    self.error(e.span, "a keyset must be compile-time known");
                }
            }
        }
    }

    /// A table entry is installed before any packet arrives, so its keyset
    /// cannot read the block's parameters (locals are left alone: the
    /// reference compiler may have propagated their constant values).
    fn entry_keyset_known(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::List(items) => items.iter().for_each(|i| self.entry_keyset_known(i)),
            ExprKind::Mask { value: a, mask: b } | ExprKind::Range { lo: a, hi: b } => {
                self.entry_keyset_known(a);
                self.entry_keyset_known(b);
            }
            _ if self.reads_parameter(e) => {
                self.error(e.span, "a table entry's keyset must be compile-time known")
            }
            _ => {}
        }
    }

    /// Whether `e` reads a parameter of the block (directly or through a
    /// field, element, slice, cast or operation).
    fn reads_parameter(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Path(_) => self
                .refs
                .get(&e.id)
                .is_some_and(|r| r.kind == super::RefKind::Parameter),
            ExprKind::Member { base, .. } | ExprKind::Slice { base, .. } => {
                self.reads_parameter(base)
            }
            ExprKind::Index { base, index } => {
                self.reads_parameter(base) || self.reads_parameter(index)
            }
            ExprKind::Unary { operand, .. } => self.reads_parameter(operand),
            ExprKind::Cast { expr, .. } => self.reads_parameter(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.reads_parameter(lhs) || self.reads_parameter(rhs)
            }
            _ => false,
        }
    }

    /// Gives the operands of `a &&& b` / `a .. b` the key's type.
    fn retype_keyset(&mut self, e: &Expr, ty: &Type) {
        let ty = &self.types.representation(ty);
        if let ExprKind::Mask { value: a, mask: b } | ExprKind::Range { lo: a, hi: b } = &e.kind {
            self.coerce(a, ty, "keyset");
            self.coerce(b, ty, "keyset");
            self.set_type(e.id, &Type::Keyset(Box::new(ty.clone())));
        }
    }

    pub(super) fn control_decl(
        &mut self,
        sig: &ast::Signature,
        ctor: &[ast::Param],
        locals: &[Decl],
        apply: &ast::Block,
    ) {
        let (params, ctor_params) = self.block_decl_type(sig, ctor, BlockKind::Control);
        let ctx = Context {
            in_control: true,
            ..Context::default()
        };
        self.scoped(ctx, |c| {
            c.declare_block_header(sig, &params, &ctor_params, locals);
            let ctx = c.ctx.clone();
            c.scoped(ctx, |c| c.block(apply));
        });
    }

    pub(super) fn instance_decl(
        &mut self,
        ty: &ast::TypeRef,
        args: &[Argument],
        name: &ast::Ident,
        initializer: Option<&[Decl]>,
        span: Span,
    ) {
        let declared = self.resolve_type(ty);
        let inst = self.constructor_call(span, &declared, &[], args);
        let block = matches!(
            self.types.kind(&inst),
            Some(TypeDefKind::Block {
                block: BlockKind::Parser | BlockKind::Control,
                ..
            })
        );
        if block && self.scopes.is_top_level() {
            self.error(
                name.span,
                format!(
                    "parsers and controls cannot be instantiated at the top level (`{}`)",
                    name.name
                ),
            );
        }
        // A parser holds parsers and externs; a control, controls and
        // externs (spec 10.3).
        let misplaced = match self.types.kind(&inst) {
            Some(TypeDefKind::Block {
                block: BlockKind::Parser,
                ..
            }) if self.ctx.in_control => Some("a parser cannot be instantiated in a control"),
            Some(TypeDefKind::Block {
                block: BlockKind::Control,
                ..
            }) if self.ctx.in_parser => Some("a control cannot be instantiated in a parser"),
            Some(TypeDefKind::Block {
                block: BlockKind::Package,
                ..
            }) if !self.scopes.is_top_level() => {
                Some("a package can only be instantiated at the top level")
            }
            _ => None,
        };
        if let Some(why) = misplaced {
            self.error(name.span, format!("{why} (`{}`)", name.name));
        }
        if let Some(methods) = initializer {
            self.abstract_impls(name, &inst, methods);
        }
        self.declare_value(name, inst, false, None, ValueRole::Instance);
    }

    /// Checks the method bodies of `T(...) x = { ... }` against `T`'s
    /// abstract methods.
    fn abstract_impls(&mut self, name: &ast::Ident, inst: &Type, methods: &[Decl]) {
        let Type::Named { id, args } = inst else {
            return;
        };
        if !matches!(self.types.kind(inst), Some(TypeDefKind::Extern)) {
            self.error(
                name.span,
                format!(
                    "only instances of extern types can have an initializer, not `{}`",
                    name.name
                ),
            );
            return;
        }
        let outer = self
            .types
            .get(*id)
            .map(|d| d.type_params.clone())
            .unwrap_or_default();
        let abstracts: Vec<Rc<Callable>> = self
            .methods
            .get(id)
            .map(|ms| {
                ms.iter()
                    .filter(|m| m.kind == CallableKind::AbstractMethod)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let ctx = Context {
            this_type: Some(inst.clone()),
            ..self.ctx.clone()
        };
        self.scoped(ctx, |c| {
            for d in methods {
                let DeclKind::Function { return_type, sig, .. } = &d.kind else {
                    if matches!(d.kind, DeclKind::Instance { .. }) {
                        c.decl(d);
                    } else {
                        c.error(d.span, "an instance initializer may only contain instances and method implementations");
                    }
                    continue;
                };
                let own = c.signature(sig, Some(return_type), CallableKind::Function);
                // Which abstract methods exist and are implemented is a
                // structural rule; here only the types are compared.
                if let Some(a) = abstracts.iter().find(|a| a.name == sig.name.name) {
                    c.compare_impl(sig, &own, a, &outer, args);
                }
                c.decl(d);
            }
        });
    }

    fn compare_impl(
        &mut self,
        sig: &ast::Signature,
        own: &Callable,
        abs: &Callable,
        outer: &[String],
        args: &[Type],
    ) {
        let name = &sig.name.name;
        let ret = subst(&abs.ret, outer, args);
        if !self.types.same(&own.ret, &ret) {
            let (a, b) = (self.show(&own.ret), self.show(&ret));
            self.error(
                sig.name.span,
                format!("`{name}` returns `{a}` but the abstract method returns `{b}`"),
            );
        }
        let required = abs.params.iter().filter(|p| !p.optional).count();
        if own.params.len() > abs.params.len() || own.params.len() < required {
            self.error(
                sig.name.span,
                format!(
                    "`{name}` has {} parameters but the abstract method has {}",
                    own.params.len(),
                    abs.params.len()
                ),
            );
            return;
        }
        for (p, q) in own.params.iter().zip(&abs.params) {
            let qt = subst(&q.ty, outer, args);
            if p.direction == q.direction && !self.types.same(&p.ty, &qt) {
                let (a, b) = (self.show(&p.ty), self.show(&qt));
                self.error(
                    p.span,
                    format!(
                        "parameter `{}` of `{name}` has type `{a}`, the abstract method has `{b}`",
                        p.name
                    ),
                );
            }
        }
    }

    pub(super) fn table_decl(&mut self, name: &ast::Ident, properties: &[TableProperty]) {
        let index = self.tables.len() as u32;
        let mut info = TableInfo {
            name: name.name.clone(),
            actions: Vec::new(),
        };
        for p in properties {
            if let TablePropertyKind::Actions(list) = &p.kind {
                for a in list {
                    if self.table_action(a) {
                        info.actions.push(a.name.name.name.clone());
                    }
                }
            }
        }
        self.tables.push(info);
        let mut key_types: Option<Vec<Type>> = None;
        let mut match_kinds: Vec<&str> = Vec::new();
        for p in properties {
            match &p.kind {
                TablePropertyKind::Key(elements) => {
                    key_types = Some(elements.iter().map(|k| self.key_element(k)).collect());
                    match_kinds = elements
                        .iter()
                        .map(|k| k.match_kind.name.name.as_str())
                        .collect();
                }
                TablePropertyKind::Actions(_) => {}
                TablePropertyKind::DefaultAction(e) => {
                    self.table_action_call(index, e, "default action")
                }
                TablePropertyKind::Entries(entries) => {
                    let keys = key_types.clone().unwrap_or_default();
                    if keys.is_empty() && !entries.is_empty() {
                        self.error(
                            p.span,
                            format!("table `{}` has entries but no key", name.name),
                        );
                    }
                    for entry in entries {
                        self.keyset(&entry.keyset, &keys, "entry");
                        self.entry_keyset_known(&entry.keyset);
                        self.lpm_masks(&entry.keyset, &match_kinds, &keys);
                        self.table_action_call(index, &entry.action, "entry action");
                        if let Some(prio) = &entry.priority {
                            self.const_int(prio, "entry priority");
                        }
                    }
                }
                TablePropertyKind::Other { name: prop, value } => self.table_property(prop, value),
            }
        }
        self.implied_priorities(properties);
        self.scopes
            .declare(&name.name, Symbol::Table(index, name.span));
    }

    /// Entries after one with a priority and without their own get the
    /// previous priority minus `priority_delta` (plus, when
    /// `largest_priority_wins = false`); spec 13.2.1.4. Each must stay a
    /// positive 32-bit number.
    fn implied_priorities(&mut self, properties: &[TableProperty]) {
        let number = |c: &Self, name: &str| {
            properties.iter().find_map(|p| match &p.kind {
                TablePropertyKind::Other { name: n, value } if n.name == name => {
                    c.values.get(&value.id).cloned()
                }
                _ => None,
            })
        };
        let delta = match number(self, "priority_delta") {
            Some(v) => v.int().cloned().unwrap_or_else(|| BigInt::from(1)),
            None => BigInt::from(1),
        };
        let largest_wins = !matches!(
            number(self, "largest_priority_wins"),
            Some(Value::Bool(false))
        );
        let entries = properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Entries(list) => Some(list),
            _ => None,
        });
        let mut current: Option<BigInt> = None;
        for entry in entries.into_iter().flatten() {
            let explicit = entry.priority.as_ref().and_then(|p| self.values.get(&p.id));
            current = match (explicit.and_then(|v| v.int()), current) {
                (Some(v), _) => Some(v.clone()),
                (None, Some(previous)) if largest_wins => Some(previous - &delta),
                (None, Some(previous)) => Some(previous + &delta),
                (None, None) => None,
            };
            let Some(priority) = &current else { continue };
            if entry.priority.is_none()
                && (*priority < BigInt::from(1) || *priority > BigInt::from(u32::MAX))
            {
                self.error(
                    entry.span,
                    format!("this entry's implied priority {priority} is not in 1..=4294967295 (the previous one's, stepped by `priority_delta` {delta})"),
                );
                return;
            }
        }
    }

    /// An `lpm` key field of an entry takes a value, or a value `&&&` a
    /// prefix mask: ones from the most significant bit, then zeros.
    fn lpm_masks(&mut self, keyset: &Expr, match_kinds: &[&str], key_types: &[Type]) {
        let elements: Vec<&Expr> = match &keyset.kind {
            ExprKind::List(items) => items.iter().collect(),
            _ => vec![keyset],
        };
        let fields = elements.into_iter().zip(match_kinds).zip(key_types);
        for ((element, kind), ty) in fields {
            let ExprKind::Mask { mask, .. } = &element.kind else {
                continue;
            };
            let width = self.types.width_of(ty);
            let value = self.values.get(&mask.id).and_then(|v| v.int().cloned());
            let (Some(width), Some(value), true) = (width, value, *kind == "lpm") else {
                continue;
            };
            if !super::consteval::is_prefix_mask(&value, width) {
                self.error(
                    mask.span,
                    format!(
                        "`{}` is not a prefix mask for an `lpm` key of {width} bits",
                        self.unit.slice(mask.span)
                    ),
                );
            }
        }
    }

    fn key_element(&mut self, k: &ast::KeyElement) -> Type {
        let t = self.expr(&k.expr);
        let kind = &k.match_kind.name.name;
        if !self.match_kinds.contains(kind) {
            self.error(
                k.match_kind.span,
                format!("`{kind}` is not a declared match kind"),
            );
        }
        let numeric = self.types.representation(&t);
        let ok = matches!(
            numeric,
            Type::Bit(_)
                | Type::Int(_)
                | Type::Bool
                | Type::Error
                | Type::Unknown
                | Type::Var(_)
                | Type::Varbit(_)
        ) || matches!(self.types.kind(&t), Some(TypeDefKind::Enum { .. }));
        if !ok {
            let shown = self.show(&t);
            self.error(k.expr.span, format!("table key cannot have type `{shown}`"));
        }
        if matches!(kind.as_str(), "lpm" | "range" | "ternary")
            && matches!(numeric, Type::Bool)
            && kind != "ternary"
        {
            self.error(
                k.expr.span,
                format!("match kind `{kind}` cannot be used on a `bool` key"),
            );
        }
        t
    }

    /// One entry of the `actions` list; false when it is not an action.
    fn table_action(&mut self, a: &ast::ActionRef) -> bool {
        let name = &a.name.name.name;
        let actions: Vec<Rc<Callable>> = match self.scopes.lookup(name, a.name.top_level) {
            Some(Symbol::Callables(list))
                if list.iter().all(|c| c.kind == CallableKind::Action) =>
            {
                list.clone()
            }
            Some(_) => {
                self.error(a.name.span, format!("`{name}` is not an action"));
                return false;
            }
            None => {
                self.error(a.name.span, format!("action `{name}` is not declared"));
                return false;
            }
        };
        let args = a.args.as_deref().unwrap_or(&[]);
        self.overloaded_call(a.span, name, &actions, &[], args, Binding::ControlPlaneTail);

        true
    }

    /// `default_action = a(...)` or an entry's action: an action of the
    /// table with all its arguments.
    fn table_action_call(&mut self, table: u32, e: &Expr, what: &str) {
        let path = match &e.kind {
            ExprKind::Path(p) => p,
            ExprKind::Call { callee, .. } => match &callee.kind {
                ExprKind::Path(p) => p,
                _ => {
                    self.error(e.span, format!("{what} must be an action"));
                    return;
                }
            },
            _ => {
                self.error(e.span, format!("{what} must be an action"));
                return;
            }
        };
        let name = &path.name.name;
        let listed = self
            .tables
            .get(table as usize)
            .is_some_and(|t| t.actions.contains(name));
        if !listed {
            self.error(
                path.span,
                format!("{what} `{name}` is not in the table's actions list"),
            );
            self.expr(e);
            return;
        }
        self.expr(e);
    }

    fn table_property(&mut self, prop: &ast::Ident, value: &Expr) {
        let t = self.expr(value);
        match prop.name.as_str() {
            "size" => {
                let integer = matches!(
                    t,
                    Type::InfInt | Type::Bit(_) | Type::Int(_) | Type::Unknown
                );
                if !integer || self.runtime_value(value) {
                    self.error(
                        value.span,
                        "table `size` must be a compile-time known integer",
                    );
                } else if let Some(n) = self.const_of(value).filter(num_traits::Signed::is_negative)
                {
                    self.error(
                        value.span,
                        format!("table `size` must not be negative, found {n}"),
                    );
                }
            }
            "largest_priority_wins" if !matches!(t, Type::Bool | Type::Unknown) => {
                let shown = self.show(&t);
                self.error(
                    value.span,
                    format!("`largest_priority_wins` must be `bool`, not `{shown}`"),
                );
            }
            "priority_delta"
                if !matches!(
                    t,
                    Type::InfInt | Type::Bit(_) | Type::Int(_) | Type::Unknown
                ) =>
            {
                let shown = self.show(&t);
                self.error(
                    value.span,
                    format!("`priority_delta` must be an integer, not `{shown}`"),
                );
            }
            _ => {}
        }
    }
}
