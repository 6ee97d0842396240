//! Expressions: resolves names, gives every expression its concrete type
//! (untyped literals take the type the context expects) and maps method
//! and extern calls to IR operations. A table application inside an
//! expression (`t.apply().hit`) is hoisted into [`Lowerer::pending`].

use super::types::to_bits;
use super::{Binding, Lowerer};
use crate::ir::{BinOp, Builtin, Expr, ExprKind, Stmt, Ty, UnOp, VarStorage};
use num_bigint::{BigInt, BigUint};
use p4bpf_front::ast::{self, BinaryOp, ExprKind as A, UnaryOp};

fn int(value: BigUint, ty: Ty) -> Expr {
    Expr { kind: ExprKind::Int(value), ty }
}

fn is_untyped_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        A::Int(lit) => lit.width.is_none(),
        A::Unary { operand, .. } => is_untyped_literal(operand),
        _ => false,
    }
}

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn expr(&mut self, e: &'a ast::Expr, expected: Option<&Ty>) -> Option<Expr> {
        match &e.kind {
            A::Bool(b) => Some(Expr { kind: ExprKind::Bool(*b), ty: Ty::Bool }),
            A::Int(lit) => {
                if lit.width.is_some_and(|(w, _)| w == 0 || w > 2048) {
                    self.diags.error(e.span, "unsupported literal width");
                    return None;
                }
                let ty = match (lit.width, expected) {
                    (Some((width, signed)), _) => Ty::Bits { width, signed },
                    (None, Some(t @ Ty::Bits { .. })) => t.clone(),
                    _ => Ty::bits(32),
                };
                let width = ty.width().unwrap_or(32);
                Some(int(to_bits(&lit.value, width), ty))
            }
            A::Path(p) => self.path(&p.name.name, e),
            A::Member { base, member } => self.member(base, member, e),
            A::Index { base, index } => {
                let base = self.expr(base, None)?;
                let Ty::Stack { elem, size } = base.ty else {
                    self.diags.error(e.span, "only header stacks can be indexed");
                    return None;
                };
                let i = self.env.eval_u32(index, &mut self.diags)?;
                if i >= size {
                    self.diags.error(index.span, format!("index {i} is out of bounds of a stack of {size}"));
                    return None;
                }
                let ty = self.prog_agg_ty(elem);
                Some(Expr { kind: ExprKind::Index { base: Box::new(base), index: Box::new(int(i.into(), Ty::bits(32))) }, ty })
            }
            A::Slice { base, hi, lo } => {
                let base = self.expr(base, None)?;
                let hi = self.env.eval_u32(hi, &mut self.diags)?;
                let lo = self.env.eval_u32(lo, &mut self.diags)?;
                let width = base.ty.width().unwrap_or(0);
                if hi < lo || hi >= width || width > 64 {
                    self.diags.error(e.span, format!("slice [{hi}:{lo}] does not fit a bit<{width}>"));
                    return None;
                }
                Some(Expr { kind: ExprKind::Slice { base: Box::new(base), hi, lo }, ty: Ty::bits(hi - lo + 1) })
            }
            A::Call { callee, args, .. } => self.call_expr(callee, args, e),
            A::Unary { op, operand } => {
                let operand = self.expr(operand, expected)?;
                let (op, ty) = match op {
                    UnaryOp::Plus => return Some(operand),
                    UnaryOp::Not => (UnOp::Not, Ty::Bool),
                    UnaryOp::Neg => (UnOp::Neg, operand.ty.clone()),
                    UnaryOp::Complement => (UnOp::Complement, operand.ty.clone()),
                };
                self.check_scalar(&operand, e)?;
                Some(Expr { kind: ExprKind::Unary { op, operand: Box::new(operand) }, ty })
            }
            A::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, expected, e),
            A::Ternary { cond, then, other } => {
                let cond = self.expr(cond, Some(&Ty::Bool))?;
                let then = self.expr(then, expected)?;
                let other = self.expr(other, Some(&then.ty))?;
                let ty = then.ty.clone();
                Some(Expr { kind: ExprKind::Mux { cond: Box::new(cond), then: Box::new(then), other: Box::new(other) }, ty })
            }
            A::Cast { ty, expr } => {
                let ty = self.env.resolve(ty, &mut self.diags)?;
                let inner = self.expr(expr, Some(&ty))?;
                if let (ExprKind::Int(v), Some(w)) = (&inner.kind, ty.width()) {
                    return Some(int(to_bits(&BigInt::from(v.clone()), w), ty));
                }
                self.check_scalar(&inner, e)?;
                Some(Expr { kind: ExprKind::Cast(Box::new(inner)), ty })
            }
            _ => {
                self.diags.error(e.span, "this expression is not supported by the eBPF target");
                None
            }
        }
    }

    fn check_scalar(&mut self, x: &Expr, at: &ast::Expr) -> Option<()> {
        match x.ty.width() {
            Some(w) if w <= 64 => Some(()),
            Some(w) => {
                self.diags.error(at.span, format!("arithmetic on bit<{w}> is not supported by the eBPF target (64 bits at most)"));
                None
            }
            None => {
                self.diags.error(at.span, "expected a bit string or bool");
                None
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: &'a ast::Expr, rhs: &'a ast::Expr, expected: Option<&Ty>, e: &'a ast::Expr) -> Option<Expr> {
        let comparison = matches!(op, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge);
        let operand_hint = if comparison || matches!(op, BinaryOp::And | BinaryOp::Or) { None } else { expected };
        // Type the typed side first so an untyped literal can follow it.
        let (l, r) = if is_untyped_literal(lhs) && !is_untyped_literal(rhs) {
            let r = self.expr(rhs, operand_hint)?;
            let l = self.expr(lhs, Some(&r.ty))?;
            (l, r)
        } else {
            let l = self.expr(lhs, operand_hint)?;
            let shift = matches!(op, BinaryOp::Shl | BinaryOp::Shr);
            let r = self.expr(rhs, if shift { None } else { Some(&l.ty) })?;
            (l, r)
        };
        self.combine(op, l, r, e)
    }

    /// The typed binary operation `l op r`.
    pub(super) fn combine(&mut self, op: BinaryOp, l: Expr, r: Expr, e: &ast::Expr) -> Option<Expr> {
        if op == BinaryOp::Concat {
            let width = l.ty.width().unwrap_or(0) + r.ty.width().unwrap_or(0);
            if width > 64 {
                self.diags.error(e.span, "concatenation wider than 64 bits is not supported by the eBPF target");
                return None;
            }
            return Some(Expr { kind: ExprKind::Concat { hi: Box::new(l), lo: Box::new(r) }, ty: Ty::bits(width) });
        }
        let wide_eq = matches!(op, BinaryOp::Eq | BinaryOp::Ne) && l.ty.width().is_some_and(|w| w > 64);
        if !wide_eq {
            self.check_scalar(&l, e)?;
            self.check_scalar(&r, e)?;
        }
        let (op, ty) = match op {
            BinaryOp::Mul => (BinOp::Mul, l.ty.clone()),
            BinaryOp::Div => (BinOp::Div, l.ty.clone()),
            BinaryOp::Mod => (BinOp::Mod, l.ty.clone()),
            BinaryOp::Add => (BinOp::Add, l.ty.clone()),
            BinaryOp::Sub => (BinOp::Sub, l.ty.clone()),
            BinaryOp::AddSat => (BinOp::AddSat, l.ty.clone()),
            BinaryOp::SubSat => (BinOp::SubSat, l.ty.clone()),
            BinaryOp::Shl => (BinOp::Shl, l.ty.clone()),
            BinaryOp::Shr => (BinOp::Shr, l.ty.clone()),
            BinaryOp::BitAnd => (BinOp::BitAnd, l.ty.clone()),
            BinaryOp::BitOr => (BinOp::BitOr, l.ty.clone()),
            BinaryOp::BitXor => (BinOp::BitXor, l.ty.clone()),
            BinaryOp::Le => (BinOp::Le, Ty::Bool),
            BinaryOp::Ge => (BinOp::Ge, Ty::Bool),
            BinaryOp::Lt => (BinOp::Lt, Ty::Bool),
            BinaryOp::Gt => (BinOp::Gt, Ty::Bool),
            BinaryOp::Eq => (BinOp::Eq, Ty::Bool),
            BinaryOp::Ne => (BinOp::Ne, Ty::Bool),
            BinaryOp::And => (BinOp::And, Ty::Bool),
            BinaryOp::Or => (BinOp::Or, Ty::Bool),
            BinaryOp::Concat => return None,
        };
        Some(Expr { kind: ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, ty })
    }

    fn path(&mut self, name: &str, e: &ast::Expr) -> Option<Expr> {
        match self.lookup(name) {
            Some(Binding::Var(v)) => {
                let ty = self.prog.var(v).map(|v| v.ty.clone()).unwrap_or(Ty::Void);
                Some(Expr { kind: ExprKind::Var(v), ty })
            }
            Some(Binding::Const(value, ty)) => Some(int(to_bits(&value, ty.width().unwrap_or(32)), ty)),
            _ => match self.env.consts.get(name).cloned() {
                Some((value, ty)) => {
                    if ty == Ty::Bool {
                        return Some(Expr { kind: ExprKind::Bool(value != BigInt::from(0)), ty });
                    }
                    Some(int(to_bits(&value, ty.width().unwrap_or(32)), ty))
                }
                None => {
                    self.diags.error(e.span, format!("`{name}` is not a value the eBPF target can use here"));
                    None
                }
            },
        }
    }

    fn member(&mut self, base: &'a ast::Expr, member: &ast::Ident, e: &'a ast::Expr) -> Option<Expr> {
        let base_name = match &base.kind {
            A::Path(p) => Some(p.name.name.as_str()),
            A::Type(t) if matches!(t.kind, ast::TypeRefKind::Error) => Some("error"),
            _ => None,
        };
        if base_name == Some("error") {
            return match self.env.error_code(&member.name) {
                Some(code) => Some(Expr { kind: ExprKind::ErrorCode(code), ty: Ty::Error }),
                None => {
                    self.diags.error(member.span, format!("unknown error `{}`", member.name));
                    None
                }
            };
        }
        if let Some(name) = base_name {
            if self.lookup(name).is_none() {
                if let Some(info) = self.env.enums.get(name) {
                    let width = info.width;
                    return match info.members.get(&member.name).cloned() {
                        Some(v) => Some(int(v, Ty::bits(width))),
                        None => {
                            self.diags.error(member.span, format!("`{name}` has no member `{}`", member.name));
                            None
                        }
                    };
                }
            }
        }
        if let A::Call { callee, type_args, .. } = &base.kind {
            if let A::Member { base: table, member: apply } = &callee.kind {
                if apply.name == "apply" && matches!(member.name.as_str(), "hit" | "miss") {
                    return self.apply_hit(table, member.name == "miss", e);
                }
                if apply.name == "lookahead" {
                    return self.lookahead_field(type_args, &member.name, e);
                }
            }
        }
        let b = self.expr(base, None)?;
        self.field(b, &member.name, e)
    }

    pub(super) fn field(&mut self, base: Expr, name: &str, e: &ast::Expr) -> Option<Expr> {
        if let Ty::Stack { elem, size } = base.ty {
            let elem_ty = self.prog_agg_ty(elem);
            let b = Box::new(base);
            return match name {
                "next" => Some(Expr { kind: ExprKind::StackNext(b), ty: elem_ty }),
                "last" => Some(Expr { kind: ExprKind::StackLast(b), ty: elem_ty }),
                "nextIndex" => Some(Expr { kind: ExprKind::StackIndex { stack: b, minus: 0 }, ty: Ty::bits(32) }),
                "lastIndex" => Some(Expr { kind: ExprKind::StackIndex { stack: b, minus: 1 }, ty: Ty::bits(32) }),
                "size" => Some(int(size.into(), Ty::bits(32))),
                _ => {
                    self.diags.error(e.span, format!("header stacks have no member `{name}`"));
                    None
                }
            };
        }
        let agg = match base.ty {
            Ty::Header(a) | Ty::Struct(a) | Ty::Union(a) => a,
            _ => {
                self.diags.error(e.span, format!("cannot take field `{name}` of this value"));
                return None;
            }
        };
        let found = self.env.aggregates.get(agg.index()).and_then(|g| g.fields.iter().position(|f| f.name == name).map(|i| (i, g.fields[i].ty.clone())));
        match found {
            Some((field, ty)) => Some(Expr { kind: ExprKind::Field { base: Box::new(base), agg, field }, ty }),
            None => {
                self.diags.error(e.span, format!("no field `{name}`"));
                None
            }
        }
    }

    /// `p.lookahead<H>().f`: the bits of field `f` of the header ahead.
    fn lookahead_field(&mut self, type_args: &[ast::TypeRef], name: &str, e: &ast::Expr) -> Option<Expr> {
        let ty = type_args.first().and_then(|t| self.env.resolve(t, &mut self.diags));
        let Some(Ty::Header(agg)) = ty else {
            self.diags.error(e.span, "expected `lookahead<H>()` of a header type before `.`");
            return None;
        };
        let header = self.env.aggregates.get(agg.index())?;
        let check_bytes = header.wire_bits / 8;
        let Some(field) = header.fields.iter().find(|f| f.name == name) else {
            self.diags.error(e.span, format!("no field `{name}`"));
            return None;
        };
        match field.ty.width() {
            Some(w) if w <= 64 => Some(Expr { kind: ExprKind::Lookahead { bit_offset: field.bit_offset, check_bytes }, ty: field.ty.clone() }),
            _ => {
                self.diags.error(e.span, "`lookahead` fields wider than 64 bits are not supported");
                None
            }
        }
    }

    pub(super) fn prog_agg_ty(&self, id: crate::ir::AggId) -> Ty {
        match self.env.aggregates.get(id.index()).map(|a| a.kind) {
            Some(crate::ir::AggKind::Union) => Ty::Union(id),
            _ => Ty::Header(id),
        }
    }

    /// `t.apply().hit` / `.miss`: hoists the application, yields its flag.
    fn apply_hit(&mut self, table: &'a ast::Expr, miss: bool, e: &ast::Expr) -> Option<Expr> {
        let table = self.table_ref(table)?;
        let var = self.new_var(format!("{}_hit", self.dotted("t")), Ty::Bool, VarStorage::State);
        self.pending.push(Stmt::Apply { table, hit: Some(var), action_run: None });
        let flag = Expr { kind: ExprKind::Var(var), ty: Ty::Bool };
        let _ = e;
        if miss {
            Some(Expr { kind: ExprKind::Unary { op: UnOp::Not, operand: Box::new(flag) }, ty: Ty::Bool })
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

    fn call_expr(&mut self, callee: &'a ast::Expr, args: &'a [ast::Argument], e: &'a ast::Expr) -> Option<Expr> {
        match &callee.kind {
            A::Member { base, member } => match member.name.as_str() {
                "isValid" => {
                    let h = self.expr(base, None)?;
                    if !matches!(h.ty, Ty::Header(_) | Ty::Union(_)) {
                        self.diags.error(e.span, "`isValid` needs a header");
                        return None;
                    }
                    Some(Expr { kind: ExprKind::IsValid(Box::new(h)), ty: Ty::Bool })
                }
                "length" if matches!(&base.kind, A::Path(p) if matches!(self.lookup(&p.name.name), Some(Binding::PacketIn))) => {
                    Some(Expr { kind: ExprKind::PacketLength, ty: Ty::bits(32) })
                }
                "lookahead" => {
                    let ty = match &e.kind {
                        A::Call { type_args, .. } => type_args.first().and_then(|t| self.env.resolve(t, &mut self.diags)),
                        _ => None,
                    };
                    match ty {
                        Some(ty @ Ty::Bits { width, .. }) if width <= 64 => Some(Expr { kind: ExprKind::Lookahead { bit_offset: 0, check_bytes: width.div_ceil(8) }, ty }),
                        _ => {
                            self.diags.error(e.span, "`lookahead` is supported for bit<N> with N <= 64");
                            None
                        }
                    }
                }
                _ => {
                    self.diags.error(e.span, format!("method `{}` cannot be used in an expression here", member.name));
                    None
                }
            },
            A::Path(p) => self.function_call(&p.name.name, args, e),
            _ => {
                self.diags.error(e.span, "this call is not supported by the eBPF target");
                None
            }
        }
    }

    /// Calls of extern functions: the xdp_model's and the user's.
    pub(super) fn function_call(&mut self, name: &str, args: &'a [ast::Argument], e: &'a ast::Expr) -> Option<Expr> {
        let builtin = match name {
            "ebpf_ipv4_checksum" => Some((Builtin::Ipv4Checksum, Ty::bits(16))),
            "csum_replace2" => Some((Builtin::CsumReplace2, Ty::bits(16))),
            "csum_replace4" => Some((Builtin::CsumReplace4, Ty::bits(16))),
            "BPF_KTIME_GET_NS" => Some((Builtin::KtimeGetNs, Ty::bits(32))),
            "BPF_PERF_EVENT_OUTPUT" => Some((Builtin::PerfEventOutput, Ty::bits(32))),
            _ => None,
        };
        let param_types = self.extern_param_types(name);
        let mut lowered = Vec::new();
        for (i, a) in args.iter().enumerate() {
            lowered.push(self.expr(&a.value, param_types.get(i).and_then(|t| t.as_ref()))?);
        }
        if let Some((func, ty)) = builtin {
            return Some(Expr { kind: ExprKind::Builtin { func, args: lowered }, ty });
        }
        if let Some(decl @ ast::Decl { kind: ast::DeclKind::Function { .. }, .. }) = self.env.decl(name) {
            return self.inline_function(decl, args, e);
        }
        let Some(ast::Decl { kind: ast::DeclKind::ExternFunction { return_type, .. }, .. }) = self.env.decl(name) else {
            self.diags.error(e.span, format!("`{name}` is not a function the eBPF target knows"));
            return None;
        };
        if !self.allow_user_externs {
            self.diags.error(e.span, format!("extern function `{name}` needs its C implementation: pass it with --extern-file"));
            return None;
        }
        let ty = self.env.resolve(return_type, &mut self.diags)?;
        Some(Expr { kind: ExprKind::ExternCall { name: name.to_string(), args: lowered }, ty })
    }

    /// A call of a P4 function: its body is inlined (copy-in, body, copy-out)
    /// into the statements before the expression, which reads the result.
    fn inline_function(&mut self, decl: &'a ast::Decl, args: &'a [ast::Argument], e: &'a ast::Expr) -> Option<Expr> {
        let ast::DeclKind::Function { return_type, sig, body } = &decl.kind else { return None };
        if self.inlining.contains(&sig.name.name) || self.inlining.len() > 16 {
            self.diags.error(e.span, format!("function `{}` calls itself", sig.name.name));
            return None;
        }
        if args.len() != sig.params.len() {
            self.diags.error(e.span, format!("`{}` takes {} arguments", sig.name.name, sig.params.len()));
            return None;
        }
        let ret_ty = self.env.resolve(return_type, &mut self.diags)?;
        let call = format!("{}.{}", self.dotted(&sig.name.name), self.prog.vars.len());
        let mut pre = std::mem::take(&mut self.pending);
        let mut params = vec![];
        let mut copy_out = vec![];
        for (p, a) in sig.params.iter().zip(args) {
            let ty = self.env.resolve(&p.ty, &mut self.diags)?;
            let v = self.new_var(format!("{call}.{}", p.name.name), ty.clone(), VarStorage::State);
            let param = Expr { kind: ExprKind::Var(v), ty: ty.clone() };
            let arg = self.expr(&a.value, Some(&ty))?;
            pre.append(&mut self.pending);
            if p.direction != Some(ast::Direction::Out) {
                pre.push(Stmt::Assign { lhs: param.clone(), rhs: arg.clone() });
            }
            if matches!(p.direction, Some(ast::Direction::Out | ast::Direction::InOut)) {
                copy_out.push(Stmt::Assign { lhs: arg, rhs: param });
            }
            params.push((p.name.name.clone(), v));
        }
        let ret = (ret_ty != Ty::Void).then(|| self.new_var(format!("{call}.result"), ret_ty.clone(), VarStorage::State));
        // The body sees the top level and its parameters only.
        let global = self.scopes.first().cloned().unwrap_or_default();
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![global, Default::default()]);
        for (name, v) in params {
            self.bind(&name, Binding::Var(v));
        }
        let saved_ret = std::mem::replace(&mut self.return_var, ret);
        self.inlining.push(sig.name.name.clone());
        let stmts = self.block(&body.stmts);
        self.inlining.pop();
        self.return_var = saved_ret;
        self.scopes = saved_scopes;
        pre.push(Stmt::Inline { name: call, body: stmts });
        pre.extend(copy_out);
        self.pending = pre;
        Some(match ret {
            Some(v) => Expr { kind: ExprKind::Var(v), ty: ret_ty },
            None => Expr { kind: ExprKind::Bool(true), ty: Ty::Void },
        })
    }

    fn extern_param_types(&mut self, name: &str) -> Vec<Option<Ty>> {
        let Some(ast::Decl { kind: ast::DeclKind::ExternFunction { sig, .. }, .. }) = self.env.decl(name) else {
            return vec![];
        };
        sig.params.iter().map(|p| self.env.resolve(&p.ty, &mut self.diags)).collect()
    }
}
