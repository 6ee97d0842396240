//! Calls inside expressions: methods (`isValid`, `lookahead`, `length`),
//! table applications whose `hit`/`miss` is read (hoisted into
//! [`Lowerer::pending`]), the xdp_model's extern functions, the user's
//! extern functions (`--extern-file`) and P4 functions (inlined).

use super::args::{match_args, Given};
use super::{Binding, Lowerer};
use crate::ir::{Expr, ExprKind, Stmt, Ty, UnOp, VarStorage};
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::check::{CheckedProgram, Type};

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `p.lookahead<H>().f`: the bits of field `f` of the header ahead.
    pub(super) fn lookahead_field(
        &mut self,
        call: &ast::Expr,
        name: &str,
        e: &ast::Expr,
    ) -> Option<Expr> {
        let agg = match self.env.expr_ty(call, &mut self.diags) {
            Some(Ty::Header(agg) | Ty::Struct(agg)) => agg,
            _ => {
                self.diags.error(
                    e.span,
                    "expected `lookahead<T>()` of a header or struct type before `.`",
                );
                return None;
            }
        };
        let fields = &self.env.aggregates.get(agg.index())?.fields;
        // Fields lie on the wire one after the other, in a struct as in a header.
        let widths: Option<Vec<u32>> = fields.iter().map(|f| f.ty.width()).collect();
        let Some(widths) = widths else {
            self.diags.error(
                e.span,
                "`lookahead<T>()` needs a header or a struct of bit strings",
            );
            return None;
        };
        let check_bytes = widths.iter().sum::<u32>().div_ceil(8);
        let Some(index) = fields.iter().position(|f| f.name == name) else {
            self.diags.error(e.span, format!("no field `{name}`"));
            return None;
        };
        let bit_offset = widths.iter().take(index).sum();
        let ty = fields.get(index)?.ty.clone();
        match widths.get(index) {
            Some(w) if *w <= 64 => Some(Expr {
                kind: ExprKind::Lookahead {
                    bit_offset,
                    check_bytes,
                },
                ty,
            }),
            _ => {
                self.diags.error(
                    e.span,
                    "`lookahead` fields wider than 64 bits are not supported",
                );
                None
            }
        }
    }

    /// `t.apply().hit` / `.miss`: hoists the application, yields its flag.
    pub(super) fn apply_hit(
        &mut self,
        table: &'a ast::Expr,
        miss: bool,
        e: &ast::Expr,
    ) -> Option<Expr> {
        let table = self.table_ref(table)?;
        let var = self.new_var(
            format!("{}_hit", self.dotted("t")),
            Ty::Bool,
            VarStorage::State,
        );
        self.pending.extend(self.key_setup(table));
        self.pending.push(Stmt::Apply {
            table,
            hit: Some(var),
            action_run: None,
        });
        let flag = Expr {
            kind: ExprKind::Var(var),
            ty: Ty::Bool,
        };
        let _ = e;
        if miss {
            Some(Expr {
                kind: ExprKind::Unary {
                    op: UnOp::Not,
                    operand: Box::new(flag),
                },
                ty: Ty::Bool,
            })
        } else {
            Some(flag)
        }
    }

    pub(super) fn table_ref(&mut self, e: &ast::Expr) -> Option<crate::ir::TableId> {
        if let A::Path(p) = &e.kind {
            if let Some(Binding::Table(t)) = self.lookup(&p.name.name) {
                return Some(t);
            }
        }
        self.diags.error(e.span, "expected a table name");
        None
    }

    pub(super) fn call_expr(
        &mut self,
        callee: &'a ast::Expr,
        args: &'a [ast::Argument],
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        match &callee.kind {
            A::Member { base, member } => match member.name.as_str() {
                "isValid" => {
                    let h = self.expr(base)?;
                    if !matches!(h.ty, Ty::Header(_) | Ty::Union(_)) {
                        self.diags.error(e.span, "`isValid` needs a header");
                        return None;
                    }
                    Some(Expr {
                        kind: ExprKind::IsValid(Box::new(h)),
                        ty: Ty::Bool,
                    })
                }
                "length" if matches!(&base.kind, A::Path(p) if matches!(self.lookup(&p.name.name), Some(Binding::PacketIn))) => {
                    Some(Expr {
                        kind: ExprKind::PacketLength,
                        ty: Ty::bits(32),
                    })
                }
                "lookahead" => {
                    let ty = self.env.expr_ty(e, &mut self.diags);
                    match ty {
                        Some(ty @ Ty::Bits { width, .. }) if width <= 64 => Some(Expr {
                            kind: ExprKind::Lookahead {
                                bit_offset: 0,
                                check_bytes: width.div_ceil(8),
                            },
                            ty,
                        }),
                        Some(ty @ Ty::Bits { signed: false, .. }) => Some(self.lookahead_wide(ty)),
                        Some(ty @ (Ty::Header(_) | Ty::Struct(_) | Ty::Stack { .. })) => {
                            self.lookahead_value(ty, e)
                        }
                        _ => {
                            self.diags.error(
                                e.span,
                                "`lookahead` is supported for bit<N>, int<N> with N <= 64, headers, structs and stacks",
                            );
                            None
                        }
                    }
                }
                method => {
                    if let A::Path(p) = &base.kind {
                        match self.lookup(&p.name.name) {
                            Some(Binding::Extern(instance)) => {
                                return self.extern_method(instance, method, args, e);
                            }
                            Some(
                                b @ (Binding::InternetChecksum(_)
                                | Binding::Random { .. }
                                | Binding::Hash { .. }
                                | Binding::CrcChecksum { .. }
                                | Binding::Ipsec(_)),
                            ) => {
                                return self.value_extern_method(b, method, args, e);
                            }
                            _ => {}
                        }
                    }
                    self.diags.error(
                        e.span,
                        format!(
                            "method `{}` cannot be used in an expression here",
                            member.name
                        ),
                    );
                    None
                }
            },
            A::Path(p) => self.function_call(&p.name.name, args, e),
            _ => {
                self.diags
                    .error(e.span, "this call is not supported by the eBPF target");
                None
            }
        }
    }

    /// Calls of extern functions: the xdp_model's and the user's.
    pub(super) fn function_call(
        &mut self,
        name: &str,
        args: &'a [ast::Argument],
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        if let Some(call) = self.arch_function(name, args, e) {
            return call;
        }
        if let Some(
            decl @ ast::Decl {
                kind: ast::DeclKind::Function { .. },
                ..
            },
        ) = self.env.decl(name)
        {
            return self.inline_function(decl, args, e);
        }
        let Some(ast::Decl {
            kind: ast::DeclKind::ExternFunction { .. },
            ..
        }) = self.env.decl(name)
        else {
            self.diags.error(
                e.span,
                format!("`{name}` is not a function the eBPF target knows"),
            );
            return None;
        };
        if !self.allow_user_externs {
            self.diags.error(e.span, format!("extern function `{name}` needs its C implementation: pass it with --extern-file"));
            return None;
        }
        let mut lowered = Vec::new();
        for a in args {
            lowered.push(self.expr(&a.value)?);
        }
        let ty = self.env.expr_ty(e, &mut self.diags)?;
        Some(Expr {
            kind: ExprKind::ExternCall {
                name: name.to_string(),
                args: lowered,
            },
            ty,
        })
    }

    /// A call of a P4 function: its body is inlined (copy-in, body, copy-out)
    /// into the statements before the expression, which reads the result.
    fn inline_function(
        &mut self,
        decl: &'a ast::Decl,
        args: &'a [ast::Argument],
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        let ast::DeclKind::Function { sig, body, .. } = &decl.kind else {
            return None;
        };
        if self.inlining.contains(&sig.name.name) || self.inlining.len() > 16 {
            self.diags
                .error(e.span, format!("function `{}` calls itself", sig.name.name));
            return None;
        }
        let type_params: Vec<String> = sig.type_params.iter().map(|p| p.name.clone()).collect();
        let type_args = checked_type_args(self.env.checked, e);
        let bound = self.env.bind_type_params(&type_params, &type_args);
        let inlined = self.inline_body(sig, body, args, e);
        self.env.unbind_type_params(bound);
        inlined
    }

    fn inline_body(
        &mut self,
        sig: &'a ast::Signature,
        body: &'a ast::Block,
        args: &'a [ast::Argument],
        e: &'a ast::Expr,
    ) -> Option<Expr> {
        let ret_ty = self.env.expr_ty(e, &mut self.diags)?;
        let call = format!("{}.{}", self.dotted(&sig.name.name), self.prog.vars.len());
        let mut pre = std::mem::take(&mut self.pending);
        let mut params = vec![];
        let mut copy_out = vec![];
        let given = match match_args(&sig.params, args) {
            Ok(given) => given,
            Err(why) => {
                self.diags
                    .error(e.span, format!("call of `{}`: {why}", sig.name.name));
                return None;
            }
        };
        for (p, given) in sig.params.iter().zip(given) {
            if let Some(instance) = self.extern_argument(&given) {
                params.push((p.name.name.clone(), instance));
                continue;
            }
            let ty = self.env.decl_ty(&p.name, &mut self.diags)?;
            let v = self.new_var(
                format!("{call}.{}", p.name.name),
                ty.clone(),
                VarStorage::State,
            );
            let param = Expr {
                kind: ExprKind::Var(v),
                ty: ty.clone(),
            };
            params.push((p.name.name.clone(), Binding::Var(v)));
            let Given::Value(value) = given else {
                continue;
            };
            let arg = self.expr(value)?;
            pre.append(&mut self.pending);
            if p.direction != Some(ast::Direction::Out) {
                pre.push(Stmt::Assign {
                    lhs: param.clone(),
                    rhs: arg.clone(),
                });
            }
            if matches!(
                p.direction,
                Some(ast::Direction::Out | ast::Direction::InOut)
            ) {
                copy_out.push(Stmt::Assign {
                    lhs: arg,
                    rhs: param,
                });
            }
        }
        let ret = (ret_ty != Ty::Void)
            .then(|| self.new_var(format!("{call}.result"), ret_ty.clone(), VarStorage::State));
        // The body sees the top level and its parameters only.
        let global = self.scopes.first().cloned().unwrap_or_default();
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![global, Default::default()]);
        for (name, binding) in params {
            self.bind(&name, binding);
        }
        let saved_ret = std::mem::replace(&mut self.return_var, ret);
        self.inlining.push(sig.name.name.clone());
        let stmts = self.block(&body.stmts);
        self.inlining.pop();
        self.return_var = saved_ret;
        self.scopes = saved_scopes;
        pre.push(Stmt::Inline {
            name: call,
            body: stmts,
        });
        pre.extend(copy_out);
        self.pending = pre;
        Some(match ret {
            Some(v) => Expr {
                kind: ExprKind::Var(v),
                ty: ret_ty,
            },
            None => Expr {
                kind: ExprKind::Bool(true),
                ty: Ty::Void,
            },
        })
    }
}

impl Lowerer<'_, '_> {
    /// The extern instance an argument names (`ip_checksum(chk, ...)`):
    /// the parameter stands for the instance itself.
    fn extern_argument(&self, given: &Given) -> Option<Binding> {
        let Given::Value(ast::Expr {
            kind: A::Path(p), ..
        }) = given
        else {
            return None;
        };
        match self.lookup(&p.name.name) {
            Some(
                b @ (Binding::Extern(_)
                | Binding::InternetChecksum(_)
                | Binding::Random { .. }
                | Binding::Hash { .. }
                | Binding::CrcChecksum { .. }
                | Binding::Ipsec(_)),
            ) => Some(b),
            _ => None,
        }
    }
}

/// The type arguments the checker chose for the call `e`.
pub(super) fn checked_type_args(checked: &CheckedProgram, e: &ast::Expr) -> Vec<Type> {
    checked
        .calls
        .get(&e.id)
        .map(|c| c.type_args.clone())
        .unwrap_or_default()
}
