//! Initializers: an assignment or declaration whose value is a list
//! (`{ 1, 2 }`, `{ { 0 }, ... }`), a struct initializer (`{ f = 1, ... }`),
//! `{#}`, `...`, or a constant of struct or list type becomes one
//! assignment per scalar field. A header given a value becomes valid; `{#}`
//! and the default value of a header make it invalid. Fields left to `...`
//! take their default values (spec 7.3: zero, `false`, `error.NoError`,
//! invalid headers).

use super::Lowerer;
use crate::ir::{AggId, Expr, ExprKind, Stmt, Ty, VarStorage};
use num_bigint::BigUint;
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::check::Value;
use p4bpf_front::source::Span;

/// Where the value of one place comes from.
#[derive(Clone, Copy)]
enum Init<'a, 'v> {
    /// An expression as written.
    Written(&'a ast::Expr),
    /// A compile-time value (a constant of struct or list type).
    Known(&'v Value),
    /// The default value of the place's type.
    Default,
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `place = value`, where `value` may be an initializer.
    pub(super) fn assign_value(&mut self, place: Expr, value: &'a ast::Expr, out: &mut Vec<Stmt>) {
        self.init(place, Init::Written(value), value.span, out);
    }

    /// An initializer used as a value (an argument, an operand): a fresh
    /// variable of its checked type, initialized before the expression.
    pub(super) fn initialized_temp(&mut self, e: &'a ast::Expr) -> Option<Expr> {
        let ty = self.env.expr_ty(e, &mut self.diags)?;
        let name = format!("{}.init{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, ty.clone(), VarStorage::State);
        let temp = Expr {
            kind: ExprKind::Var(v),
            ty,
        };
        let mut stmts = vec![];
        self.assign_value(temp.clone(), e, &mut stmts);
        self.pending.append(&mut stmts);
        Some(temp)
    }

    fn init(&mut self, place: Expr, init: Init<'a, 'a>, at: Span, out: &mut Vec<Stmt>) {
        match init {
            Init::Written(e) => self.init_written(place, e, out),
            Init::Known(v) => self.init_known(place, v, at, out),
            Init::Default => self.init_default(place, out),
        }
    }

    fn init_written(&mut self, place: Expr, e: &'a ast::Expr, out: &mut Vec<Stmt>) {
        match &e.kind {
            A::List(items) => {
                let (items, rest) = match items.split_last() {
                    Some((last, init)) if matches!(last.kind, A::DefaultValue) => (init, true),
                    _ => (items.as_slice(), false),
                };
                let inits: Vec<Init> = items.iter().map(Init::Written).collect();
                self.init_positional(place, &inits, rest, e.span, out);
            }
            A::StructInit { fields, rest, .. } => {
                let named: Vec<(&str, Init)> = fields
                    .iter()
                    .map(|(name, value)| (name.name.as_str(), Init::Written(value)))
                    .collect();
                self.init_named(place, &named, *rest, e.span, out);
            }
            A::Invalid => self.set_validity(place, false, e.span, out),
            A::DefaultValue => self.init_default(place, out),
            _ => match self.env.value(e) {
                Some(v @ (Value::List(_) | Value::Struct(_))) => {
                    self.init_known(place, v, e.span, out)
                }
                _ => {
                    if let Some(value) = self.expr_into(e, out) {
                        self.assign(place, value, e.span, out);
                    }
                }
            },
        }
    }

    fn init_known(&mut self, place: Expr, v: &'a Value, at: Span, out: &mut Vec<Stmt>) {
        match v {
            Value::List(items) => {
                let inits: Vec<Init> = items.iter().map(Init::Known).collect();
                self.init_positional(place, &inits, false, at, out);
            }
            Value::Struct(fields) => {
                let named: Vec<(&str, Init)> = fields
                    .iter()
                    .map(|(name, value)| (name.as_str(), Init::Known(value)))
                    .collect();
                self.init_named(place, &named, false, at, out);
            }
            scalar => {
                let value = match (&place.ty, scalar) {
                    (Ty::Bool, Value::Bool(b)) => Some(ExprKind::Bool(*b)),
                    (Ty::Error, Value::Member { member, .. }) => {
                        self.env.error_code(member).map(ExprKind::ErrorCode)
                    }
                    (ty, v) => ty
                        .width()
                        .and_then(|w| self.env.scalar_bits(v, w))
                        .map(ExprKind::Int),
                };
                match value {
                    Some(kind) => out.push(Stmt::Assign {
                        rhs: Expr {
                            kind,
                            ty: place.ty.clone(),
                        },
                        lhs: place,
                    }),
                    None => self
                        .diags
                        .error(at, "this constant does not fit the place it initializes"),
                }
            }
        }
    }

    /// The places inside an aggregate or stack, in order.
    pub(super) fn parts(&self, place: &Expr) -> Vec<(String, Expr)> {
        match &place.ty {
            Ty::Header(agg) | Ty::Struct(agg) | Ty::Union(agg) => {
                let fields = self
                    .env
                    .aggregates
                    .get(agg.index())
                    .map(|a| a.fields.clone())
                    .unwrap_or_default();
                fields
                    .into_iter()
                    .enumerate()
                    .map(|(i, f)| (f.name, field_of(place, *agg, i, f.ty)))
                    .collect()
            }
            Ty::Stack { elem, size } => (0..*size)
                .map(|i| (i.to_string(), element_of(place, i, self.prog_agg_ty(*elem))))
                .collect(),
            _ => vec![],
        }
    }

    fn init_positional(
        &mut self,
        place: Expr,
        items: &[Init<'a, 'a>],
        rest: bool,
        at: Span,
        out: &mut Vec<Stmt>,
    ) {
        let parts = self.parts(&place);
        if parts.is_empty() && !items.is_empty() {
            self.diags.error(at, "a list initializer needs a header, struct or header stack here (tuples are not supported by the eBPF target)");
            return;
        }
        if items.len() > parts.len() || (items.len() < parts.len() && !rest) {
            self.diags.error(
                at,
                format!("expected {} values, found {}", parts.len(), items.len()),
            );
            return;
        }
        self.validate_header(&place, at, out);
        for (i, (_, part)) in parts.into_iter().enumerate() {
            let init = items.get(i).copied().unwrap_or(Init::Default);
            self.init(part, init, at, out);
        }
    }

    fn init_named(
        &mut self,
        place: Expr,
        fields: &[(&str, Init<'a, 'a>)],
        rest: bool,
        at: Span,
        out: &mut Vec<Stmt>,
    ) {
        let parts = self.parts(&place);
        if let Some((unknown, _)) = fields
            .iter()
            .find(|(name, _)| !parts.iter().any(|(n, _)| n == name))
        {
            self.diags
                .error(at, format!("no field `{unknown}` to initialize"));
            return;
        }
        self.validate_header(&place, at, out);
        for (name, part) in parts {
            match fields.iter().find(|(n, _)| *n == name) {
                Some((_, init)) => self.init(part, *init, at, out),
                None if rest => self.init_default(part, out),
                None => self
                    .diags
                    .error(at, format!("field `{name}` is not initialized")),
            }
        }
    }

    /// A header given a value becomes valid (a union cannot be given one).
    fn validate_header(&mut self, place: &Expr, at: Span, out: &mut Vec<Stmt>) {
        match place.ty {
            Ty::Header(_) => out.push(Stmt::SetValid {
                header: place.clone(),
                valid: true,
            }),
            Ty::Union(_) => self.diags.error(
                at,
                "a header union takes `{#}` or one of its headers, not a list",
            ),
            _ => {}
        }
    }

    fn set_validity(&mut self, place: Expr, valid: bool, at: Span, out: &mut Vec<Stmt>) {
        match place.ty {
            Ty::Header(_) => out.push(Stmt::SetValid {
                header: place,
                valid,
            }),
            Ty::Union(_) => {
                for (_, member) in self.parts(&place) {
                    self.set_validity(member, valid, at, out);
                }
            }
            _ => self.diags.error(at, "`{#}` needs a header or header union"),
        }
    }

    /// Spec 7.3's default values: zero, `false`, `NoError`, invalid headers.
    fn init_default(&mut self, place: Expr, out: &mut Vec<Stmt>) {
        let kind = match &place.ty {
            Ty::Bool => ExprKind::Bool(false),
            Ty::Bits { .. } => ExprKind::Int(BigUint::default()),
            Ty::Error => ExprKind::ErrorCode(0),
            Ty::Header(_) | Ty::Union(_) => {
                return self.set_validity(place, false, Span::default(), out)
            }
            Ty::Struct(_) | Ty::Stack { .. } => {
                for (_, part) in self.parts(&place) {
                    self.init_default(part, out);
                }
                return;
            }
            // Empty, as the per-packet state starts (its size is 0).
            Ty::Void | Ty::Varbit { .. } => return,
        };
        out.push(Stmt::Assign {
            rhs: Expr {
                kind,
                ty: place.ty.clone(),
            },
            lhs: place,
        });
    }
}

/// `base.field`, the `field`-th member of aggregate `agg`, of type `ty`.
pub(super) fn field_of(base: &Expr, agg: AggId, field: usize, ty: Ty) -> Expr {
    Expr {
        kind: ExprKind::Field {
            base: Box::new(base.clone()),
            agg,
            field,
        },
        ty,
    }
}

fn element_of(stack: &Expr, index: u32, ty: Ty) -> Expr {
    Expr {
        kind: ExprKind::Index {
            base: Box::new(stack.clone()),
            index: Box::new(Expr {
                kind: ExprKind::Int(index.into()),
                ty: Ty::bits(32),
            }),
        },
        ty,
    }
}
