//! Digests: v1model's `digest(receiver, data)` and PSA's and PNA's
//! `Digest<T>` with `pack(data)`. Each digest becomes an [`ir::Digest`];
//! each call copies `data` into a variable of its own (the values at the
//! call, as v1model.p4 says) and sends that copy at once
//! ([`Builtin::Digest`]).
//!
//! Sending at the call is what each architecture asks: PSA and PNA pack
//! in the deparser, whose end is the send point; BMv2 sends v1model's
//! digest at the end of ingress whatever the packet's fate, and nothing
//! after the call in ingress can take it back (no resubmission here).
//! A v1model digest is named after its data's type, as p4c names it, so
//! calls with the same type share one digest.

use super::call::checked_type_args;
use super::{Binding, Lowerer};
use crate::cstruct::Scalar;
use crate::ir::{self, Builtin, Expr, ExprKind, Ty, VarStorage};
use p4bpf_front::ast;
use p4bpf_front::check::Type;
use p4bpf_front::source::Span;

/// The largest digest data sent: its record is a copy on the BPF stack.
const MAX_DIGEST_BYTES: u32 = 256;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `Digest<T>() name;`: a digest named after the instance.
    pub(super) fn digest_instance(&mut self, name: &ast::Ident, decl: &ast::Decl) {
        let checked = self.env.checked;
        let data = match checked.decl_type(name) {
            Some(Type::Named { args, .. }) => args.first(),
            _ => None,
        };
        let Some(ty) = data.and_then(|t| self.env.ty(t, decl.span, &mut self.diags)) else {
            self.diags.error(
                decl.span,
                "`Digest` takes the type of its data: `Digest<T>()`",
            );
            return;
        };
        let p4_name = self.dotted(&name.name);
        let p4_id = self.id_annotation(&decl.annotations);
        if let Some(index) = self.new_digest(p4_name, ty, p4_id, decl.span) {
            self.bind(&name.name, Binding::Digest(index));
        }
    }

    /// v1model's `digest<T>(receiver, data)`.
    pub(super) fn digest_call(&mut self, args: &'a [ast::Argument], e: &ast::Expr) -> Option<Expr> {
        let [_, data] = args else {
            self.diags
                .error(e.span, "`digest` takes a receiver and the data to send");
            return None;
        };
        let type_args = checked_type_args(self.env.checked, e);
        let data_type = match type_args.first() {
            Some(t) if *t != Type::Unknown => t.clone(),
            _ => self.list_type(&data.value),
        };
        let ty = self.env.ty(&data_type, e.span, &mut self.diags)?;
        // Named after its struct type: data of no struct type has no name.
        let Some(name) = (match &ty {
            Ty::Struct(agg) => self.env.aggregates.get(agg.index()).map(|a| a.name.clone()),
            _ => None,
        }) else {
            self.diags.error(
                e.span,
                "a digest's data must be a struct of bit strings, booleans and errors (v1model names the digest after it)",
            );
            return None;
        };
        let known = self.prog.digests.iter().position(|d| d.name == name);
        let index = match known {
            Some(i) => i as u32,
            None => self.new_digest(name, ty, None, e.span)?,
        };
        self.send_digest(index, &data.value)
    }

    /// The type of `data`; a list (`{ a, b }`) whose type no context fixed
    /// is the tuple of its items' types, as p4c takes it.
    fn list_type(&self, data: &ast::Expr) -> Type {
        let checked = self.env.checked;
        match &data.kind {
            ast::ExprKind::List(items) => {
                Type::Tuple(items.iter().map(|i| checked.type_of(i).clone()).collect())
            }
            _ => checked.type_of(data).clone(),
        }
    }

    /// `instance.method(args)` of a `Digest`: only `pack(data)`.
    pub(super) fn digest_method(
        &mut self,
        index: u32,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        match (method, args) {
            ("pack", [data]) => self.send_digest(index, &data.value),
            _ => {
                self.diags.error(
                    call.span,
                    format!(
                        "`Digest` has no method `{method}` taking {} arguments: it has `pack(data)`",
                        args.len()
                    ),
                );
                None
            }
        }
    }

    /// Copies `data` into a fresh variable and sends it; the statements
    /// go to [`Lowerer::pending`].
    fn send_digest(&mut self, index: u32, data: &'a ast::Expr) -> Option<Expr> {
        let ty = self.prog.digests.get(index as usize)?.ty.clone();
        let name = format!("{}.digest{}", self.dotted("tmp"), self.prog.vars.len());
        let var = self.new_var(name, ty.clone(), VarStorage::State);
        let copy = Expr {
            kind: ExprKind::Var(var),
            ty,
        };
        let mut stmts = vec![];
        self.assign_value(copy.clone(), data, &mut stmts);
        self.pending.append(&mut stmts);
        self.pending.push(ir::Stmt::Eval(Expr {
            kind: ExprKind::Builtin {
                func: Builtin::Digest(index),
                args: vec![copy],
            },
            ty: Ty::Void,
        }));
        Some(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Void,
        })
    }

    /// Registers a digest of `ty`, which must be a bit string, boolean or
    /// error, or a struct of them and of such structs (a record carries
    /// the C struct as it is, nested structs included).
    fn new_digest(&mut self, name: String, ty: Ty, p4_id: Option<u32>, at: Span) -> Option<u32> {
        if !self.digestible(&ty) {
            self.diags.error(
                at,
                "a digest's data must be a bit string, boolean or error, or a struct of them, on the eBPF target",
            );
            return None;
        }
        let bytes = self.struct_bytes(&ty);
        if bytes > MAX_DIGEST_BYTES {
            self.diags.error(
                at,
                format!("a digest's data takes {bytes} bytes; the eBPF target sends at most {MAX_DIGEST_BYTES} (each record is built on the 512-byte BPF stack)"),
            );
            return None;
        }
        let c_name = self.c_name(&format!("digest.{name}"));
        self.prog.digests.push(ir::Digest {
            name,
            c_name,
            ty,
            p4_id,
        });
        Some(self.prog.digests.len() as u32 - 1)
    }

    /// The bytes a struct's fields take in C, padding aside.
    fn struct_bytes(&self, ty: &Ty) -> u32 {
        let Ty::Struct(agg) = ty else {
            return Scalar::for_width(ty.width().unwrap_or(8)).size();
        };
        let fields = self
            .env
            .aggregates
            .get(agg.index())
            .map(|a| a.fields.as_slice());
        fields
            .unwrap_or_default()
            .iter()
            .map(|f| self.struct_bytes(&f.ty))
            .sum()
    }

    /// A scalar, or a struct of scalars and of such structs.
    fn digestible(&self, ty: &Ty) -> bool {
        let Ty::Struct(agg) = ty else {
            return is_scalar(ty);
        };
        let aggregates = &self.env.aggregates;
        aggregates
            .get(agg.index())
            .is_some_and(|a| a.fields.iter().all(|f| self.digestible(&f.ty)))
    }
}

fn is_scalar(ty: &Ty) -> bool {
    matches!(ty, Ty::Bits { .. } | Ty::Bool | Ty::Error)
}
