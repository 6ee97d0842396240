//! Controls and what they declare: the apply body, actions (functions of
//! the state and their parameters), counters, value sets, and controls
//! instantiated inside a control (lowered once, inlined at each `apply`
//! with copy-in/copy-out of their arguments).

use super::args::{match_args, Given};
use super::{Binding, Lowerer};
use crate::ir::{self, ActionId, Expr, ExprKind, Stmt, Ty, VarStorage};
use p4bpf_front::ast::{self, DeclKind, ExprKind as A, TypeRefKind};
use std::collections::HashMap;

impl<'a, 'u> Lowerer<'a, 'u> {
    pub(super) fn control(&mut self, decl: &'a ast::Decl, shared: &[Option<ir::VarId>]) {
        let DeclKind::Control {
            sig,
            ctor_params,
            locals,
            apply,
        } = &decl.kind
        else {
            return;
        };
        self.prefix = sig.name.name.clone();
        self.scopes.push(HashMap::new());
        self.bind_params(&sig.params, shared, false);
        self.bind_block_ctor_args(ctor_params, &sig.name);
        for local in locals {
            self.local_decl(local);
        }
        let mut body = std::mem::take(&mut self.local_inits);
        body.extend(self.block(&apply.stmts));
        self.scopes.pop();
        let name = self.block_name(&sig.name.name);
        self.prog.controls.push(ir::Control {
            name,
            origin: self.diags.origin(decl.span),
            body,
        });
    }

    /// The name of a control filling an architecture block: its own, with
    /// a number when the same control fills an earlier block too (a C
    /// label ends each block).
    fn block_name(&self, control: &str) -> String {
        let taken = |name: &str| self.prog.controls.iter().any(|c| c.name == name);
        if !taken(control) {
            return control.to_string();
        }
        (2..)
            .map(|n| format!("{control}_{n}"))
            .find(|name| !taken(name))
            .unwrap_or_default()
    }

    /// A declaration inside a parser or control (not a statement).
    pub(super) fn local_decl(&mut self, decl: &'a ast::Decl) {
        match &decl.kind {
            DeclKind::Action { .. } => self.action(decl),
            DeclKind::Table { .. } => self.table(decl),
            DeclKind::Instance { ty, args, name, .. } => self.instance(ty, args, name, decl),
            DeclKind::ValueSet { size, name, .. } => {
                let (Some(ty), Some(size)) = (
                    self.env.decl_ty(name, &mut self.diags),
                    self.env.const_u32(size, &mut self.diags),
                ) else {
                    return;
                };
                let p4 = self.dotted(&name.name);
                let c_name = self.c_name(&p4);
                let id = ir::ValueSetId(self.prog.value_sets.len() as u32);
                let p4_id = self.id_annotation(&decl.annotations);
                let match_kinds = self.value_set_match_kinds(&p4, &ty, name.span);
                if match_kinds.iter().any(|k| *k != ir::MatchKind::Exact) {
                    self.check_scanned_size(&p4, size, match_kinds.len(), name.span);
                }
                self.prog.value_sets.push(ir::ValueSet {
                    name: p4,
                    c_name,
                    size,
                    ty,
                    p4_id,
                    match_kinds,
                });
                self.bind(&name.name, Binding::ValueSet(id));
            }
            _ => {
                let mut out = vec![];
                self.decl_stmt(decl, &mut out);
                self.local_inits.append(&mut out);
            }
        }
    }

    fn instance(
        &mut self,
        ty: &ast::TypeRef,
        args: &'a [ast::Argument],
        name: &'a ast::Ident,
        decl: &ast::Decl,
    ) {
        let type_name = match &ty.kind {
            ast::TypeRefKind::Named { path, .. } => path.name.name.as_str(),
            _ => "",
        };
        match self.env.decl(type_name) {
            Some(
                control @ ast::Decl {
                    kind: DeclKind::Control { .. },
                    ..
                },
            ) if self.takes_externs(control) => self.defer_control(control, name, args),
            Some(
                control @ ast::Decl {
                    kind: DeclKind::Control { .. },
                    ..
                },
            ) => self.sub_control(control, name, args, vec![]),
            Some(
                parser @ ast::Decl {
                    kind: DeclKind::Parser { .. },
                    ..
                },
            ) => {
                self.sub_parsers.push(super::SubParser {
                    instance: name,
                    decl: parser,
                    ctor_args: args,
                });
                self.bind(&name.name, Binding::SubParser(self.sub_parsers.len() - 1));
            }
            _ => self.extern_instance(type_name, args, name, decl),
        }
    }

    /// `C.apply(...)` on a control type: an instance of its own, named
    /// after the type, made where it is applied (P4_16 direct invocation).
    pub(super) fn apply_control_type(
        &mut self,
        control: &'a ast::Decl,
        type_name: &ast::Ident,
        args: &'a [ast::Argument],
        call: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) {
        self.scopes.push(HashMap::new());
        self.sub_control(control, type_name, &[], vec![]);
        if let Some(Binding::SubControl(index)) = self.lookup(&type_name.name) {
            self.apply_sub_control(index, args, call, out);
        }
        self.scopes.pop();
    }

    /// Lowers an instance of `control`; `externs` binds its extern
    /// parameters, if it has any.
    pub(super) fn sub_control(
        &mut self,
        control: &'a ast::Decl,
        instance: &ast::Ident,
        ctor_args: &'a [ast::Argument],
        externs: Vec<(String, Binding)>,
    ) {
        let DeclKind::Control {
            sig,
            ctor_params,
            locals,
            apply,
        } = &control.kind
        else {
            return;
        };
        let prefix = self.dotted(&instance.name);
        let global = self.scopes.first().cloned().unwrap_or_default();
        let instances = self.instance_ctor_args(ctor_params, ctor_args);
        // The instance sees only the top level and its own names.
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![global, HashMap::new()]);
        let saved_prefix = std::mem::replace(&mut self.prefix, prefix.clone());
        for (name, binding) in externs {
            self.bind(&name, binding);
        }
        let params = self.call_params(&sig.params, &prefix);
        let outer_inits = std::mem::take(&mut self.local_inits);
        for (name, binding) in instances {
            self.bind(&name, binding);
        }
        self.bind_ctor_args(ctor_params, ctor_args, instance);
        for local in locals {
            self.local_decl(local);
        }
        let mut body = std::mem::replace(&mut self.local_inits, outer_inits);
        body.extend(self.block(&apply.stmts));
        self.scopes = saved_scopes;
        self.prefix = saved_prefix;
        self.sub_controls.push(super::SubControl {
            name: prefix,
            control_type: sig.name.name.clone(),
            params,
            body,
        });
        self.bind(
            &instance.name,
            Binding::SubControl(self.sub_controls.len() - 1),
        );
    }

    /// The parameters of a parser or control instance, bound in the current
    /// scope: a variable each, or the packet (`None`) for `packet_in` and
    /// `packet_out`, as there is one packet.
    pub(super) fn call_params(
        &mut self,
        params: &[ast::Param],
        prefix: &str,
    ) -> Vec<(Option<ir::VarId>, Option<ast::Direction>)> {
        let mut bound = vec![];
        for p in params {
            let packet = match &p.ty.kind {
                TypeRefKind::Named { path, .. } => match path.name.name.as_str() {
                    "packet_in" => Some(Binding::PacketIn),
                    "packet_out" => Some(Binding::PacketOut),
                    _ => None,
                },
                _ => None,
            };
            let extern_bound = matches!(
                self.scopes.last().and_then(|s| s.get(&p.name.name)),
                Some(Binding::Extern(_))
            );
            if let Some(packet) = packet {
                self.bind(&p.name.name, packet);
                bound.push((None, p.direction));
            } else if extern_bound {
                // An extern parameter, bound to its argument's instance.
                bound.push((None, None));
            } else if let Some(ty) = self.env.decl_ty(&p.name, &mut self.diags) {
                let v = self.new_var(format!("{prefix}.{}", p.name.name), ty, VarStorage::State);
                self.bind(&p.name.name, Binding::Var(v));
                bound.push((Some(v), p.direction));
            }
        }
        bound
    }

    /// The constructor arguments `main` gives an architecture block: bound
    /// as they are for an instance inside a control.
    pub(super) fn bind_block_ctor_args(&mut self, params: &'a [ast::Param], block: &ast::Ident) {
        let args = std::mem::take(&mut self.block_ctor_args);
        for (name, binding) in self.instance_ctor_args(params, args) {
            self.bind(&name, binding);
        }
        self.bind_ctor_args(params, args, block);
    }

    /// Constructor arguments that name instances in the caller's scope (a
    /// control, parser or extern passed to a control or parser): the
    /// bindings their parameters take inside the instance.
    pub(super) fn instance_ctor_args(
        &self,
        params: &'a [ast::Param],
        args: &'a [ast::Argument],
    ) -> Vec<(String, Binding)> {
        let Ok(given) = match_args(params, args) else {
            return vec![];
        };
        params
            .iter()
            .zip(given)
            .filter_map(|(p, given)| {
                let Given::Value(ast::Expr {
                    kind: A::Path(path),
                    ..
                }) = given
                else {
                    return None;
                };
                match self.lookup(&path.name.name)? {
                    Binding::Var(_) => None,
                    binding => Some((p.name.name.clone(), binding)),
                }
            })
            .collect()
    }

    /// Constructor parameters of a control instance: variables set to the
    /// instance's compile-time arguments when its body starts (those bound
    /// to instances already are skipped).
    pub(super) fn bind_ctor_args(
        &mut self,
        params: &'a [ast::Param],
        args: &'a [ast::Argument],
        instance: &ast::Ident,
    ) {
        let given = match match_args(params, args) {
            Ok(given) => given,
            Err(why) => {
                self.diags.error(
                    instance.span,
                    format!("instance `{}`: {why}", instance.name),
                );
                return;
            }
        };
        for (p, given) in params.iter().zip(given) {
            let bound = self
                .scopes
                .last()
                .is_some_and(|scope| scope.contains_key(&p.name.name));
            if bound {
                continue;
            }
            let Some(ty) = self.env.decl_ty(&p.name, &mut self.diags) else {
                continue;
            };
            let Given::Value(value) = given else {
                continue;
            };
            let bits = match (self.env.value(value), ty.width()) {
                (Some(v), Some(w)) => self.env.scalar_bits(v, w),
                _ => None,
            };
            let Some(bits) = bits else {
                self.diags.error(value.span, format!("constructor argument `{}` must be a compile-time bit string, bool, enum or error value on the eBPF target", p.name.name));
                continue;
            };
            let v = self.new_var(self.dotted(&p.name.name), ty.clone(), VarStorage::State);
            self.bind(&p.name.name, Binding::Var(v));
            let rhs = match ty {
                Ty::Bool => ExprKind::Bool(bits != 0u32.into()),
                Ty::Error => ExprKind::ErrorCode(u32::try_from(&bits).unwrap_or(0)),
                _ => ExprKind::Int(bits),
            };
            self.local_inits.push(Stmt::Assign {
                lhs: Expr {
                    kind: ExprKind::Var(v),
                    ty: ty.clone(),
                },
                rhs: Expr { kind: rhs, ty },
            });
        }
    }

    pub(super) fn apply_sub_control(
        &mut self,
        index: usize,
        args: &'a [ast::Argument],
        call: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let Some(sc) = self.sub_controls.get(index).cloned() else {
            return;
        };
        let declared = match self.env.decl(&sc.control_type).map(|d| &d.kind) {
            Some(DeclKind::Control { sig, .. }) => sig.params.as_slice(),
            _ => &[],
        };
        let Some(copy_out) = self.copy_in(&sc.name, declared, &sc.params, args, call, out) else {
            return;
        };
        out.push(Stmt::Inline {
            name: sc.name,
            body: sc.body,
        });
        out.extend(copy_out);
        out.push(Stmt::ExitOnward);
    }

    /// Copies the arguments of a parser or control call (by position or
    /// name, defaults for those left out) into its parameter variables
    /// (all but `out` ones); returns the copies back to the arguments
    /// (`out` and `inout` ones) for after the call.
    pub(super) fn copy_in(
        &mut self,
        callee: &str,
        declared: &'a [ast::Param],
        params: &[(Option<ir::VarId>, Option<ast::Direction>)],
        args: &'a [ast::Argument],
        call: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<Vec<Stmt>> {
        let given = match match_args(declared, args) {
            Ok(given) if given.len() == params.len() => given,
            Ok(_) => return None,
            Err(why) => {
                self.diags.error(call.span, format!("`{callee}`: {why}"));
                return None;
            }
        };
        let mut copy_out = vec![];
        for ((v, dir), given) in params.iter().zip(given) {
            let (Some(v), Given::Value(value)) = (v, given) else {
                continue;
            };
            let v = *v;
            let ty = self.prog.var(v).map(|v| v.ty.clone()).unwrap_or(Ty::Void);
            let x = self.expr_into(value, out)?;
            let param = Expr {
                kind: ExprKind::Var(v),
                ty,
            };
            if *dir != Some(ast::Direction::Out) {
                out.push(Stmt::Assign {
                    lhs: param.clone(),
                    rhs: x.clone(),
                });
            }
            if matches!(dir, Some(ast::Direction::Out | ast::Direction::InOut)) {
                copy_out.push(Stmt::Assign { lhs: x, rhs: param });
            }
        }
        Some(copy_out)
    }

    pub(super) fn action(&mut self, decl: &'a ast::Decl) {
        let DeclKind::Action { sig, body } = &decl.kind else {
            return;
        };
        let p4 = self.control_plane_name(&decl.annotations, &sig.name.name);
        let c_name = self.c_name(&format!("action_{p4}"));
        self.scopes.push(HashMap::new());
        let mut params = vec![];
        let directional = sig.params.iter().filter(|p| p.direction.is_some()).count();
        for p in &sig.params {
            let Some(ty) = self.env.decl_ty(&p.name, &mut self.diags) else {
                continue;
            };
            let aggregate = matches!(ty, Ty::Header(_) | Ty::Struct(_) | Ty::Union(_));
            // Headers and structs go by pointer (`in` ones are read-only);
            // `out`/`inout` scalars too, so the action writes the caller's place.
            let by_pointer = match p.direction {
                Some(ast::Direction::Out | ast::Direction::InOut) => true,
                Some(ast::Direction::In) => aggregate,
                None => false,
            };
            if p.direction.is_none() && aggregate {
                self.diags.error(p.span, format!("action parameter `{}` from the control plane is a header or struct: the eBPF target takes bit strings and bools from the control plane (give it a direction to pass it from a call or the `actions` list)", p.name.name));
                continue;
            }
            if !by_pointer && ty.width().is_none() {
                self.diags.error(p.span, format!("action parameter `{}` must be a bit string or a bool (headers and structs need a direction)", p.name.name));
                continue;
            }
            let storage = if by_pointer {
                VarStorage::ActionOutParam
            } else {
                VarStorage::ActionParam
            };
            let v = self.new_var(p.name.name.clone(), ty, storage);
            self.bind(&p.name.name, Binding::Var(v));
            params.push(v);
        }
        let id = ActionId(self.prog.actions.len() as u32);
        let p4_id = self.id_annotation(&decl.annotations);
        // Bound before the body so nothing can refer to a half-built action.
        self.prog.actions.push(ir::Action {
            name: p4,
            c_name,
            origin: self.diags.origin(decl.span),
            params,
            directional,
            body: vec![],
            default_only: Self::has_annotation(&decl.annotations, "defaultonly"),
            table_only: Self::has_annotation(&decl.annotations, "tableonly"),
            p4_id,
            hidden: Self::has_annotation(&decl.annotations, "hidden"),
        });
        self.action_params.insert(id, &sig.params);
        let stmts = self.block(&body.stmts);
        self.scopes.pop();
        if let Some(a) = self.prog.actions.get_mut(id.index()) {
            a.body = stmts;
        }
        self.bind(&sig.name.name, Binding::Action(id));
    }

    pub(super) fn action_param_types(&self, action: ActionId) -> Vec<Ty> {
        let Some(a) = self.prog.action(action) else {
            return vec![];
        };
        a.params
            .iter()
            .filter_map(|v| self.prog.var(*v).map(|v| v.ty.clone()))
            .collect()
    }
}
