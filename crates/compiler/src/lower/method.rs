//! Calls used as statements: action calls, `verify`, extern and P4
//! functions, and the methods of packets (`extract`, `advance`, `emit`),
//! tables (`apply`), controls, extern objects (counters, registers),
//! headers and stacks.

use super::{Binding, Lowerer};
use crate::ir::{Expr, ExprKind, Stmt, Ty, VarStorage};
use p4bpf_front::ast::{self, ExprKind as A};

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn call_stmt(&mut self, call: &'a ast::Expr, out: &mut Vec<Stmt>) {
        let A::Call { callee, args, .. } = &call.kind else {
            self.diags.error(call.span, "expected a call");
            return;
        };
        match &callee.kind {
            A::Member { base, member } => self.method_call(base, &member.name, args, call, out),
            A::Path(p) => match self.lookup(&p.name.name) {
                Some(Binding::Action(action)) => self.direct_action_call(action, args, call, out),
                _ if p.name.name == "verify" => {
                    let [cond, error] = args.as_slice() else {
                        self.diags
                            .error(call.span, "`verify` takes a condition and an error");
                        return;
                    };
                    let Some(cond) = self.expr_into(&cond.value, out) else {
                        return;
                    };
                    let Some(error) = self.expr_into(&error.value, out) else {
                        return;
                    };
                    match error.kind {
                        ExprKind::ErrorCode(error) => out.push(Stmt::Verify { cond, error }),
                        _ if error.ty == Ty::Error => out.push(self.verify_any(cond, error)),
                        _ => self.diags.error(
                            call.span,
                            "the second argument of `verify` must be an error",
                        ),
                    }
                }
                // core.p4's compile-time assertion: the checker evaluated it
                // (and reported a false one), so nothing of it runs.
                _ if p.name.name == "static_assert" => {
                    if self.env.value(call).is_none() {
                        self.diags.error(
                            call.span,
                            "`static_assert` needs a condition known at compile time",
                        );
                    }
                }
                _ => {
                    if let Some(x) = self.function_call(&p.name.name, args, call) {
                        out.append(&mut self.pending);
                        // A void P4 function is all in its inlined body.
                        if x.ty != Ty::Void {
                            out.push(Stmt::Eval(x));
                        }
                    }
                }
            },
            _ => self
                .diags
                .error(call.span, "this call is not supported by the eBPF target"),
        }
    }

    /// `verify(cond, e)` with an error known at run time: a `verify` with
    /// each error constant, chosen by the value of `e`.
    fn verify_any(&self, cond: Expr, error: Expr) -> Stmt {
        let cases = (0..self.env.errors.len() as u32)
            .map(|code| {
                let verify = Stmt::Verify {
                    cond: cond.clone(),
                    error: code,
                };
                (vec![code.into()], vec![verify])
            })
            .collect();
        Stmt::SwitchValue {
            value: error,
            cases,
            default: None,
        }
    }

    fn method_call(
        &mut self,
        base: &'a ast::Expr,
        method: &str,
        args: &'a [ast::Argument],
        call: &'a ast::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let target = match &base.kind {
            A::Path(p) => self.lookup(&p.name.name),
            _ => None,
        };
        let arg = |i: usize| args.get(i).map(|a| &a.value);
        match (target, method) {
            (Some(Binding::PacketIn), "extract") if args.len() == 1 => {
                let header = match arg(0) {
                    Some(a) if matches!(a.kind, A::DontCare) => self.discarded_header(call),
                    a => a.and_then(|a| self.expr_into(a, out)),
                };
                if let Some(h) = header {
                    self.push_header_op(h, call, out, |header| Stmt::Extract {
                        header,
                        varbit_bits: None,
                    });
                }
            }
            (Some(Binding::PacketIn), "lookahead") => self.discarded_lookahead(call, out),
            (Some(Binding::PacketIn), "extract") if args.len() == 2 => {
                let (Some(h), Some(bits)) = (arg(0), arg(1)) else {
                    return;
                };
                if let Some(stmt) = self.extract_varbit(h, bits, call, out) {
                    out.push(stmt);
                }
            }
            (Some(Binding::PacketIn), "advance") => {
                let Some(amount) = arg(0) else {
                    return;
                };
                if self.env.value(amount).is_none() {
                    if let Some(bits) = self.expr_into(amount, out) {
                        out.push(Stmt::AdvanceBy { bits });
                    }
                    return;
                }
                let Some(bits) = self.env.const_u32(amount, &mut self.diags) else {
                    return;
                };
                if bits % 8 != 0 {
                    self.diags.error(
                        call.span,
                        format!(
                            "`advance` by {bits} bits: the eBPF target advances by whole bytes"
                        ),
                    );
                    return;
                }
                out.push(Stmt::Advance { bits });
            }
            (Some(Binding::PacketOut), "emit") => {
                if let Some(h) = arg(0).and_then(|a| self.expr_into(a, out)) {
                    self.push_header_op(h, call, out, |header| Stmt::Emit { header });
                }
            }
            (Some(Binding::SubControl(index)), "apply") => {
                self.apply_sub_control(index, args, call, out)
            }
            (Some(Binding::PendingControl(index)), "apply") => {
                self.apply_pending_control(index, args, call, out)
            }
            (None, "apply") if self.apply_by_type_name(base, args, call, out) => {}
            (Some(Binding::SubParser(_)), "apply") => self.diags.error(
                call.span,
                "a sub-parser is applied by a statement of its own in a parser state, not inside another statement",
            ),
            (Some(Binding::Table(table)), "apply") => {
                out.extend(self.key_setup(table));
                out.push(Stmt::Apply {
                    table,
                    hit: None,
                    action_run: None,
                })
            }
            (Some(Binding::Digest(digest)), _) => {
                if self.digest_method(digest, method, args, call).is_some() {
                    out.append(&mut self.pending);
                }
            }
            (Some(Binding::Extern(instance)), _) => {
                if let Some(x) = self.extern_method(instance, method, args, call) {
                    out.append(&mut self.pending);
                    out.push(Stmt::Eval(x));
                }
            }
            (
                Some(
                    b @ (Binding::InternetChecksum(_)
                    | Binding::Random { .. }
                    | Binding::Hash { .. }
                    | Binding::CrcChecksum { .. }
                    | Binding::Ipsec(_)),
                ),
                _,
            ) => {
                // A value (`get()`) as a statement has no effect.
                if self.value_extern_method(b, method, args, call).is_some() {
                    out.append(&mut self.pending);
                }
            }
            (_, "setValid" | "setInvalid") => {
                let Some(h) = self.expr_into(base, out) else {
                    return;
                };
                if !matches!(h.ty, Ty::Header(_)) {
                    self.diags
                        .error(call.span, format!("`{method}` needs a header"));
                    return;
                }
                out.push(Stmt::SetValid {
                    header: h,
                    valid: method == "setValid",
                });
            }
            (_, "push_front" | "pop_front") => {
                let Some(stack) = self.expr_into(base, out) else {
                    return;
                };
                let Some(n) = arg(0).and_then(|a| self.env.const_u32(a, &mut self.diags)) else {
                    return;
                };
                let count = if method == "push_front" {
                    i64::from(n)
                } else {
                    -i64::from(n)
                };
                out.push(Stmt::StackShift { stack, count });
            }
            _ => self.diags.error(
                call.span,
                format!("method `{method}` is not supported by the eBPF target here"),
            ),
        }
    }

    /// `T.apply(...)` where `T` names a control or parser type: whether it
    /// does (a control is applied; a parser is refused here, as
    /// `parser::state` applies those that stand alone in a parser state).
    fn apply_by_type_name(
        &mut self,
        base: &'a ast::Expr,
        args: &'a [ast::Argument],
        call: &'a ast::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let A::Path(path) = &base.kind else {
            return false;
        };
        match self.env.decl(&path.name.name) {
            Some(
                decl @ ast::Decl {
                    kind: ast::DeclKind::Control { .. },
                    ..
                },
            ) => {
                self.apply_control_type(decl, &path.name, args, call, out);
                true
            }
            Some(ast::Decl {
                kind: ast::DeclKind::Parser { .. },
                ..
            }) => {
                self.diags.error(
                    call.span,
                    "a parser is applied only from a parser state, by a statement of its own",
                );
                true
            }
            _ => false,
        }
    }

    /// `extract(h, bits)` of a header with a varbit field.
    fn extract_varbit(
        &mut self,
        h: &'a ast::Expr,
        bits: &'a ast::Expr,
        call: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<Stmt> {
        let header = self.expr_into(h, out)?;
        let bits = self.expr_into(bits, out)?;
        let has_varbit = match &header.ty {
            Ty::Header(agg) => self
                .env
                .aggregates
                .get(agg.index())
                .is_some_and(|a| a.varbit.is_some()),
            _ => false,
        };
        if !has_varbit || bits.ty.width().is_none_or(|w| w > 32) {
            self.diags.error(call.span, "`extract(h, bits)` needs a header with a `varbit` field and a size of at most 32 bits");
            return None;
        }
        Some(Stmt::Extract {
            header,
            varbit_bits: Some(bits),
        })
    }

    /// Extract/emit of a header, or of every header of a stack, struct or
    /// union.
    fn push_header_op(
        &mut self,
        h: Expr,
        call: &ast::Expr,
        out: &mut Vec<Stmt>,
        make: fn(Expr) -> Stmt,
    ) {
        match h.ty.clone() {
            Ty::Header(_) => out.push(make(h)),
            Ty::Stack { elem, size } => {
                for i in 0..size {
                    let ty = self.prog_agg_ty(elem);
                    let index = Expr {
                        kind: ExprKind::Int(i.into()),
                        ty: Ty::bits(32),
                    };
                    // Each element as what it is (a stack of unions too).
                    let element = Expr {
                        kind: ExprKind::Index {
                            base: Box::new(h.clone()),
                            index: Box::new(index),
                        },
                        ty,
                    };
                    self.push_header_op(element, call, out, make);
                }
            }
            // A union emits its valid member, if any.
            Ty::Struct(agg) | Ty::Union(agg) => {
                let fields = self
                    .env
                    .aggregates
                    .get(agg.index())
                    .map(|a| a.fields.len())
                    .unwrap_or(0);
                for field in 0..fields {
                    let ty = self
                        .env
                        .aggregates
                        .get(agg.index())
                        .and_then(|a| a.fields.get(field))
                        .map(|f| f.ty.clone())
                        .unwrap_or(Ty::Void);
                    self.push_header_op(
                        Expr {
                            kind: ExprKind::Field {
                                base: Box::new(h.clone()),
                                agg,
                                field,
                            },
                            ty,
                        },
                        call,
                        out,
                        make,
                    );
                }
            }
            _ => self.diags.error(call.span, "expected a header"),
        }
    }

    /// `extract<H>(_)`: the header is read past and dropped, so it goes to
    /// a fresh variable of type `H` that nothing reads.
    fn discarded_header(&mut self, call: &'a ast::Expr) -> Option<Expr> {
        let checked = super::call::checked_type_args(self.env.checked, call);
        let Some(header) = checked.first() else {
            self.diags.error(
                call.span,
                "`extract(_)` needs the header type to skip: write `extract<H>(_)`",
            );
            return None;
        };
        let ty = self.env.ty(header, call.span, &mut self.diags)?;
        let name = format!("{}.discarded{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, ty.clone(), VarStorage::State);
        Some(Expr {
            kind: ExprKind::Var(v),
            ty,
        })
    }

    /// `p.lookahead<T>();` as a statement: nothing is kept, but a packet
    /// shorter than `T` is still PacketTooShort (as BMv2 rejects it), so
    /// the check stays with a one-byte read nothing uses.
    fn discarded_lookahead(&mut self, call: &'a ast::Expr, out: &mut Vec<Stmt>) {
        let Some(ty) = self.env.expr_ty(call, &mut self.diags) else {
            return;
        };
        let Some(bits) = self.wire_bits(&ty) else {
            self.diags.error(
                call.span,
                "`lookahead` needs a type of fixed wire width (bit strings, headers and structs of them)",
            );
            return;
        };
        if bits == 0 {
            return;
        }
        let read = Ty::bits(bits.min(8));
        let name = format!("{}.lookahead{}", self.dotted("tmp"), self.prog.vars.len());
        let v = self.new_var(name, read.clone(), VarStorage::State);
        out.push(Stmt::Assign {
            lhs: Expr {
                kind: ExprKind::Var(v),
                ty: read.clone(),
            },
            rhs: Expr {
                kind: ExprKind::Lookahead {
                    bit_offset: 0,
                    check_bytes: bits.div_ceil(8),
                },
                ty: read,
            },
        });
    }

    /// Bits `ty` takes on the wire: a bit string's width, a header's
    /// fields, a struct's members in order; `None` for anything else.
    fn wire_bits(&self, ty: &Ty) -> Option<u32> {
        match ty {
            Ty::Bits { width, .. } => Some(*width),
            Ty::Header(agg) => {
                let header = self.env.aggregates.get(agg.index())?;
                header.varbit.is_none().then_some(header.wire_bits)
            }
            Ty::Struct(agg) => {
                let fields = &self.env.aggregates.get(agg.index())?.fields;
                fields.iter().map(|f| self.wire_bits(&f.ty)).sum()
            }
            _ => None,
        }
    }
}
