//! Controls that take extern instances as (directionless) parameters,
//! `control c(inout H h, register<bit<8>> r)`: the instance is lowered
//! where it is applied, each extern parameter bound to the instance its
//! argument names, so the body calls that instance's methods. One
//! instance is applied once (a second apply could pass other externs to
//! the one body).

use super::args::{match_args, Given};
use super::{Binding, Lowerer};
use crate::ir::Stmt;
use p4bpf_front::ast::{self, DeclKind, ExprKind as A, TypeRefKind};

/// A control instance waiting for its apply to know its extern arguments.
pub(super) struct PendingControl<'a> {
    decl: &'a ast::Decl,
    instance: &'a ast::Ident,
    ctor_args: &'a [ast::Argument],
    applied: bool,
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// Whether `control` has a parameter of an extern type.
    pub(super) fn takes_externs(&self, control: &ast::Decl) -> bool {
        let DeclKind::Control { sig, .. } = &control.kind else {
            return false;
        };
        sig.params.iter().any(|p| self.extern_param(p))
    }

    /// A directionless parameter of an extern type other than the packet's
    /// (`packet_in` and `packet_out` stand for the one packet).
    fn extern_param(&self, p: &ast::Param) -> bool {
        let TypeRefKind::Named { path, .. } = &p.ty.kind else {
            return false;
        };
        let packet = matches!(path.name.name.as_str(), "packet_in" | "packet_out");
        p.direction.is_none()
            && !packet
            && matches!(
                self.env.decl(&path.name.name).map(|d| &d.kind),
                Some(DeclKind::ExternType { .. })
            )
    }

    /// Records `instance` of `control` to be lowered at its apply.
    pub(super) fn defer_control(
        &mut self,
        control: &'a ast::Decl,
        instance: &'a ast::Ident,
        ctor_args: &'a [ast::Argument],
    ) {
        self.pending_controls.push(PendingControl {
            decl: control,
            instance,
            ctor_args,
            applied: false,
        });
        let index = self.pending_controls.len() - 1;
        self.bind(&instance.name, Binding::PendingControl(index));
    }

    /// `c.apply(args)` of a pending instance: lowered now, its extern
    /// parameters bound to the instances `args` name, then applied.
    pub(super) fn apply_pending_control(
        &mut self,
        index: usize,
        args: &'a [ast::Argument],
        call: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let Some(pending) = self.pending_controls.get_mut(index) else {
            return;
        };
        let (decl, instance, ctor_args) = (pending.decl, pending.instance, pending.ctor_args);
        if std::mem::replace(&mut pending.applied, true) {
            self.diags.error(call.span, format!("`{}` takes extern instances as parameters: the eBPF target applies such a control instance once", instance.name));
            return;
        }
        let DeclKind::Control { sig, .. } = &decl.kind else {
            return;
        };
        let Ok(given) = match_args(&sig.params, args) else {
            return;
        };
        let mut externs = vec![];
        for (p, given) in sig.params.iter().zip(given) {
            if !self.extern_param(p) {
                continue;
            }
            let bound = match given {
                Given::Value(ast::Expr {
                    kind: A::Path(path),
                    ..
                }) => self.lookup(&path.name.name),
                _ => None,
            };
            match bound {
                Some(b @ Binding::Extern(_)) => externs.push((p.name.name.clone(), b)),
                _ => {
                    self.diags.error(
                        call.span,
                        format!(
                            "the argument of extern parameter `{}` must name an extern instance",
                            p.name.name
                        ),
                    );
                    return;
                }
            }
        }
        self.sub_control(decl, instance, ctor_args, externs);
        if let Some(Binding::SubControl(lowered)) = self.lookup(&instance.name) {
            self.apply_sub_control(lowered, args, call, out);
        }
    }
}
