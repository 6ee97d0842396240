//! v1model's resubmission and recirculation, as BMv2's simple_switch
//! does them: `resubmit_preserving_field_list(index)` and
//! `recirculate_preserving_field_list(index)` note the request and the
//! field list in two variables of the architecture's own (the last call
//! wins). At the end of ingress a resubmitted packet goes through ingress
//! again as it was received; at the end of egress, unless egress dropped
//! it, a recirculated packet goes through ingress again as the deparser
//! wrote it. Either way every variable is reset, `instance_type` says why
//! (BMv2's `PKT_INSTANCE_TYPE_RESUBMIT`, `_RECIRC`), and the user metadata
//! fields annotated `@field_list(index)` keep the values they had at the
//! end of the pass, read there, as BMv2 reads them. Both are
//! [`ir::Resubmit`]s, the passes PSA's resubmission uses.

use super::init::field_of;
use super::Lowerer;
use crate::arch::{Pass, Place};
use crate::ir::{self, BinOp, Expr, ExprKind, Stmt, Ty, VarStorage};
use num_traits::ToPrimitive;
use p4bpf_front::ast;
use p4bpf_front::source::Span;
use std::collections::HashMap;

const STD: &str = "standard_metadata";
/// BMv2's `PKT_INSTANCE_TYPE_RESUBMIT`.
const RESUBMIT: u32 = 6;
/// BMv2's `PKT_INSTANCE_TYPE_RECIRC`.
const RECIRCULATE: u32 = 4;
/// BMv2's drop port: a packet egress drops does not recirculate.
const DROP_PORT: u32 = 511;

/// The variables holding a pass's request and its field list.
fn vars(pass: Pass) -> (&'static str, &'static str) {
    match pass {
        Pass::Resubmit => ("v1model_resubmit", "v1model_resubmit_list"),
        Pass::Recirculate => ("v1model_recirculate", "v1model_recirculate_list"),
    }
}

/// (struct type, field) -> the field lists naming the field.
type Annotated = HashMap<(String, String), Vec<u32>>;

impl<'a> Lowerer<'a, '_> {
    /// `resubmit_preserving_field_list(index)` or
    /// `recirculate_preserving_field_list(index)`: the request and the
    /// index into the pass's variables.
    pub(super) fn another_pass_call(
        &mut self,
        pass: Pass,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let [index] = args else {
            self.diags
                .error(e.span, "this call takes the index of a field list");
            return None;
        };
        let index = self.expr(&index.value)?.cast(Ty::bits(8));
        let (flag, list) = vars(pass);
        let flag = self.own_var(flag, 1);
        let list = self.own_var(list, 8);
        self.pending.push(Stmt::Assign {
            lhs: flag,
            rhs: Expr::int(1u32, Ty::bits(1)),
        });
        self.pending.push(Stmt::Assign {
            lhs: list,
            rhs: index,
        });
        Some(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Void,
        })
    }

    /// The architecture's own variable `name` (a request, a session, a
    /// field list), made on first use.
    pub(super) fn own_var(&mut self, name: &'static str, width: u32) -> Expr {
        let id = match self.shared.get(name) {
            Some(id) => *id,
            None => {
                let id = self.new_var(name.into(), Ty::bits(width), VarStorage::State);
                self.shared.insert(name, id);
                id
            }
        };
        Expr {
            kind: ExprKind::Var(id),
            ty: Ty::bits(width),
        }
    }

    /// After every block is lowered: the passes and clones the program
    /// asks for, which read the same field lists.
    pub(super) fn v1model_passes_and_clones(
        &mut self,
        program: &ast::Program,
        ingress: Span,
        egress: Span,
    ) {
        if !self.shared.keys().any(|name| name.starts_with("v1model_")) {
            return;
        }
        let lists = self.field_lists(program, ingress);
        self.v1model_passes(&lists, ingress);
        self.v1model_clones(&lists, ingress, egress);
    }

    /// The passes the program asks for.
    fn v1model_passes(&mut self, lists: &[(u32, Vec<Expr>)], span: Span) {
        let asked: Vec<Pass> = [Pass::Resubmit, Pass::Recirculate]
            .into_iter()
            .filter(|pass| self.shared.contains_key(vars(*pass).0))
            .collect();
        let Some(instance_type) = self.arch_place(&Place::field(STD, "instance_type"), span) else {
            return;
        };
        let Some(egress_spec) = self.arch_place(&Place::field(STD, "egress_spec"), span) else {
            return;
        };
        for pass in asked {
            let (flag, list) = vars(pass);
            let mut flag = Expr::binary(
                BinOp::Eq,
                self.own_var(flag, 1),
                Expr::int(1u32, Ty::bits(1)),
            );
            if pass == Pass::Recirculate {
                let not_dropped = Expr::binary(
                    BinOp::Ne,
                    egress_spec.clone(),
                    Expr::int(DROP_PORT, egress_spec.ty.clone()),
                );
                flag = Expr::binary(BinOp::And, flag, not_dropped);
            }
            let again = ir::Resubmit {
                flag,
                kept: None,
                packet_paths: vec![instance_type.clone()],
                path: match pass {
                    Pass::Resubmit => RESUBMIT,
                    Pass::Recirculate => RECIRCULATE,
                },
                field_lists: Some(ir::FieldLists {
                    chosen: self.own_var(list, 8),
                    lists: lists.to_vec(),
                }),
            };
            match pass {
                Pass::Resubmit => self.prog.intrinsics.resubmit = Some(again),
                Pass::Recirculate => self.prog.intrinsics.recirculate = Some(again),
            }
        }
    }

    /// Every field list of the user metadata (`meta`): its index and the
    /// fields annotated with it, nested structs searched too.
    fn field_lists(&mut self, program: &ast::Program, span: Span) -> Vec<(u32, Vec<Expr>)> {
        let annotated = self.annotated_fields(program);
        let mut lists: Vec<(u32, Vec<Expr>)> = vec![];
        let Some(meta) = self.arch_place(&Place::var("meta"), span) else {
            return lists;
        };
        let mut fields = vec![];
        self.annotated_in(&meta, &annotated, &mut fields);
        for (field, indexes) in fields {
            for index in indexes {
                match lists.iter_mut().find(|(i, _)| *i == index) {
                    Some((_, list)) => list.push(field.clone()),
                    None => lists.push((index, vec![field.clone()])),
                }
            }
        }
        lists.sort_by_key(|(i, _)| *i);
        lists
    }

    /// The fields of `base` (and of the structs in it) that name a field
    /// list, with the lists they name.
    fn annotated_in(&self, base: &Expr, annotated: &Annotated, out: &mut Vec<(Expr, Vec<u32>)>) {
        let Ty::Struct(agg) = base.ty else {
            return;
        };
        let Some(aggregate) = self.env.aggregates.get(agg.index()) else {
            return;
        };
        for (i, f) in aggregate.fields.iter().enumerate() {
            let field = field_of(base, agg, i, f.ty.clone());
            let key = (aggregate.name.clone(), f.name.clone());
            if let Some(indexes) = annotated.get(&key) {
                out.push((field.clone(), indexes.clone()));
            }
            self.annotated_in(&field, annotated, out);
        }
    }

    /// The struct fields annotated `@field_list(i, ...)`; an index that
    /// is not a constant is an error at the annotation.
    fn annotated_fields(&mut self, program: &ast::Program) -> Annotated {
        let mut out = Annotated::new();
        for decl in &program.decls {
            let ast::DeclKind::Struct { name, fields, .. } = &decl.kind else {
                continue;
            };
            for field in fields {
                let indexes = self.field_list_indexes(program, &field.annotations);
                if !indexes.is_empty() {
                    out.insert((name.name.clone(), field.name.name.clone()), indexes);
                }
            }
        }
        out
    }

    fn field_list_indexes(
        &mut self,
        program: &ast::Program,
        annotations: &[ast::Annotation],
    ) -> Vec<u32> {
        let mut indexes = vec![];
        for a in annotations.iter().filter(|a| a.name.name == "field_list") {
            let ast::AnnotationBody::Expressions(list) = &a.body else {
                self.diags.error(
                    a.span,
                    "`@field_list` takes field list indexes: `@field_list(0)`",
                );
                continue;
            };
            for e in list {
                match constant(program, e).filter(|i| *i < 256) {
                    Some(i) => indexes.push(i),
                    None => self.diags.error(
                        e.span,
                        "a field list index is a constant from 0 to 255: a number, a serializable enum's member or a constant's name",
                    ),
                }
            }
        }
        indexes
    }
}

/// The value of an annotation's index (annotation bodies are not typed):
/// an integer literal, `E.M` of a serializable enum or a top-level
/// constant, each ending in a literal.
fn constant(program: &ast::Program, e: &ast::Expr) -> Option<u32> {
    match &e.kind {
        ast::ExprKind::Int(lit) => lit.value.to_u32(),
        ast::ExprKind::Member { base, member } => {
            let ast::ExprKind::Path(path) = &base.kind else {
                return None;
            };
            program.decls.iter().find_map(|d| match &d.kind {
                ast::DeclKind::Enum { name, members, .. } if name.name == path.name.name => members
                    .iter()
                    .find(|m| m.name.name == member.name)
                    .and_then(|m| m.value.as_ref())
                    .and_then(|v| constant(program, v)),
                _ => None,
            })
        }
        ast::ExprKind::Path(path) => program.decls.iter().find_map(|d| match &d.kind {
            ast::DeclKind::Constant { name, value, .. } if name.name == path.name.name => {
                constant(program, value)
            }
            _ => None,
        }),
        _ => None,
    }
}
