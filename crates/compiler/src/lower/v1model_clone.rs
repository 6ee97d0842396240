//! v1model's clones, as BMv2's simple_switch makes them: `clone(type,
//! session)` and `clone_preserving_field_list(type, session, index)`
//! note the request, the session and the field list in variables of the
//! architecture's own (the last call of each type wins). At the end of
//! ingress an I2E clone is a copy of the packet as received, parsed
//! again, with instance_type 1; at the end of egress an E2E clone is a
//! copy of the packet with the headers egress left, with instance_type
//! 2. Each goes to every member of the clone session (`mirroring_add`,
//! `p4bpf clone`) and through egress there; its metadata is reset but
//! the chosen field list, read at the end of the control that cloned.
//! They ride on the multicast copies ([`ir::Replication`], TC only).

use super::Lowerer;
use crate::arch::Place;
use crate::ir::{self, BinOp, Expr, ExprKind, Ty};
use p4bpf_front::ast;
use p4bpf_front::check::Value;
use p4bpf_front::source::Span;

const STD: &str = "standard_metadata";
/// BMv2's `PKT_INSTANCE_TYPE_INGRESS_CLONE`.
const INGRESS_CLONE: u32 = 1;
/// BMv2's `PKT_INSTANCE_TYPE_EGRESS_CLONE`.
const EGRESS_CLONE: u32 = 2;
/// The field list of a `clone` without one: no list has this index.
const NO_FIELD_LIST: u32 = 0x100;

/// The variables of one clone type: request, session, field list.
struct CloneVars {
    flag: &'static str,
    session: &'static str,
    list: &'static str,
}

const I2E: CloneVars = CloneVars {
    flag: "v1model_clone_i2e",
    session: "v1model_clone_i2e_session",
    list: "v1model_clone_i2e_list",
};

const E2E: CloneVars = CloneVars {
    flag: "v1model_clone_e2e",
    session: "v1model_clone_e2e_session",
    list: "v1model_clone_e2e_list",
};

impl<'a> Lowerer<'a, '_> {
    /// `clone(type, session)` or `clone_preserving_field_list(type,
    /// session, index)`: the request into the type's variables.
    pub(super) fn v1model_clone_call(
        &mut self,
        field_list: bool,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let (kind, session, index) = match (field_list, args) {
            (false, [kind, session]) => (kind, session, None),
            (true, [kind, session, index]) => (kind, session, Some(index)),
            _ => {
                self.diags.error(
                    e.span,
                    "a clone takes a clone type, a session and, to keep metadata, a field list index",
                );
                return None;
            }
        };
        let vars = match self.env.value(&kind.value) {
            Some(Value::Member { member, .. }) if member == "I2E" => I2E,
            Some(Value::Member { member, .. }) if member == "E2E" => E2E,
            _ => {
                self.diags.error(
                    kind.value.span,
                    "the clone type must be `CloneType.I2E` or `CloneType.E2E`",
                );
                return None;
            }
        };
        let session = self.expr(&session.value)?.cast(Ty::bits(32));
        let list = match index {
            Some(index) => self.expr(&index.value)?.cast(Ty::bits(16)),
            None => Expr::int(NO_FIELD_LIST, Ty::bits(16)),
        };
        let assigns = [
            (self.own_var(vars.flag, 1), Expr::int(1u32, Ty::bits(1))),
            (self.own_var(vars.session, 32), session),
            (self.own_var(vars.list, 16), list),
        ];
        for (lhs, rhs) in assigns {
            self.pending.push(ir::Stmt::Assign { lhs, rhs });
        }
        Some(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Void,
        })
    }

    /// The clones the program asks for, located at the control that
    /// makes them (`ingress`, `egress`).
    pub(super) fn v1model_clones(
        &mut self,
        lists: &[(u32, Vec<Expr>)],
        ingress: Span,
        egress: Span,
    ) {
        for (vars, path, at) in [(I2E, INGRESS_CLONE, ingress), (E2E, EGRESS_CLONE, egress)] {
            if !self.shared.contains_key(vars.flag) {
                continue;
            }
            let Some(packet_path) = self.arch_place(&Place::field(STD, "instance_type"), at) else {
                return;
            };
            let clone = ir::CloneI2e {
                flag: Expr::binary(
                    BinOp::Eq,
                    self.own_var(vars.flag, 1),
                    Expr::int(1u32, Ty::bits(1)),
                ),
                session: self.own_var(vars.session, 32),
                packet_path,
                path,
                at: self.diags.unit.resolve(at),
                field_lists: Some(ir::FieldLists {
                    chosen: self.own_var(vars.list, 16),
                    lists: lists.to_vec(),
                }),
            };
            if path == INGRESS_CLONE {
                self.prog.intrinsics.clone_i2e = Some(clone);
            } else {
                self.prog.intrinsics.clone_e2e = Some(clone);
            }
            self.v1model_copies(at);
        }
    }
}
