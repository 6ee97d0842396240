//! PSA's clones. A program whose runnable code sets `ostd.clone` gets
//! an [`ir::CloneI2e`] in `clone_i2e` (the flag, the session id, where a
//! copy finds its packet path), one that sets `egress_ostd.clone` one in
//! `clone_e2e`, and either gets PSA's copies machinery
//! ([`ir::Replication`]), which the emitter turns into one copy per
//! session member: an I2E clone of the packet ingress received, made
//! after the ingress deparser's body; an E2E clone of the packet the
//! egress deparser wrote, made after it, whose egress parses it again
//! from a fresh egress state (`psa_clone_e2e_fresh`).

use super::multicast::PSA_CLONE_I2E;
use super::runnable::{runnable_bodies, Sets};
use super::Lowerer;
use crate::arch::Place;
use crate::ir::{self, BinOp, Expr, ExprKind, Stmt, Ty};
use crate::midend::visit::walk_stmts;
use p4bpf_front::source::Span;

/// `PSA_PacketPath_t.CLONE_E2E`.
const PSA_CLONE_E2E: u32 = 4;

/// What an E2E clone's egress starts without: the headers, metadata and
/// outputs the original's egress left in the state the copy is made of.
const FRESH_FOR_A_CLONE: [Place; 3] = [
    Place::var("egress_headers"),
    Place::var("egress_user_meta"),
    Place::var("egress_ostd"),
];

impl Lowerer<'_, '_> {
    /// Notes clone I2E when a control can set `ostd.clone`, clone E2E
    /// when one can set `egress_ostd.clone` (located at the egress
    /// control, `egress_span`).
    pub(super) fn psa_clone(&mut self, span: Span, egress_span: Span) {
        self.psa_clone_e2e(egress_span);
        if !self.sets(&Place::field("ostd", "clone"), span) {
            return;
        }
        let (Some(flag), Some(session), Some(packet_path)) = (
            self.arch_place(&Place::field("ostd", "clone"), span),
            self.arch_place(&Place::field("ostd", "clone_session_id"), span),
            self.arch_place(&Place::field("egress_istd", "packet_path"), span),
        ) else {
            return;
        };
        self.prog.intrinsics.clone_i2e = Some(ir::CloneI2e {
            flag,
            session,
            packet_path,
            path: PSA_CLONE_I2E,
            at: self.diags.unit.resolve(span),
            field_lists: None,
        });
        self.psa_copies(span);
    }

    fn psa_clone_e2e(&mut self, span: Span) {
        if !self.sets(&Place::field("egress_ostd", "clone"), span) {
            return;
        }
        let (Some(flag), Some(session), Some(packet_path)) = (
            self.arch_place(&Place::field("egress_ostd", "clone"), span),
            self.arch_place(&Place::field("egress_ostd", "clone_session_id"), span),
            self.arch_place(&Place::field("egress_istd", "packet_path"), span),
        ) else {
            return;
        };
        self.prog.intrinsics.clone_e2e = Some(ir::CloneI2e {
            flag,
            session,
            packet_path,
            path: PSA_CLONE_E2E,
            at: self.diags.unit.resolve(span),
            field_lists: None,
        });
        self.psa_copies(span);
    }

    /// Before the egress parser, for a program that clones E2E: on an
    /// E2E clone, every egress header invalid and the egress metadata and
    /// outputs zero, as for any packet entering egress (PSA: the clone is
    /// parsed again; `clone_e2e_meta` alone carries data over).
    pub(super) fn psa_clone_e2e_fresh(&mut self, span: Span) -> Vec<Stmt> {
        let path = self.arch_place(&Place::field("egress_istd", "packet_path"), span);
        let (Some(path), true) = (path, self.sets(&Place::field("egress_ostd", "clone"), span))
        else {
            return vec![];
        };
        let mut fresh = vec![];
        for place in FRESH_FOR_A_CLONE {
            if let Some(var) = self.arch_place(&place, span) {
                self.zeroed(var, &mut fresh);
            }
        }
        let is_clone = Expr::binary(BinOp::Eq, path.clone(), Expr::int(PSA_CLONE_E2E, path.ty));
        vec![Stmt::If {
            cond: is_clone,
            then: fresh,
            other: vec![],
        }]
    }

    /// Statements making `place` what a new packet has: headers invalid,
    /// bit strings and booleans zero, structs field by field.
    fn zeroed(&self, place: Expr, out: &mut Vec<Stmt>) {
        match &place.ty {
            Ty::Header(_) => out.push(Stmt::SetValid {
                header: place,
                valid: false,
            }),
            Ty::Bool | Ty::Error | Ty::Bits { .. } => {
                let ty = place.ty.clone();
                out.push(Stmt::Assign {
                    lhs: place,
                    rhs: Expr::int(0u32, ty),
                });
            }
            Ty::Struct(agg) => {
                let fields = self
                    .env
                    .aggregates
                    .get(agg.index())
                    .map(|a| a.fields.clone());
                for (i, f) in fields.unwrap_or_default().into_iter().enumerate() {
                    let field = Expr {
                        kind: ExprKind::Field {
                            base: Box::new(place.clone()),
                            agg: *agg,
                            field: i,
                        },
                        ty: f.ty,
                    };
                    self.zeroed(field, out);
                }
            }
            // Stacks, unions and varbits in egress state: left as they are.
            _ => {}
        }
    }

    /// Whether runnable code sets `place` to something but zero.
    pub(super) fn sets(&mut self, place: &Place, span: Span) -> bool {
        let Some(ExprKind::Field { agg, field, .. }) = self.arch_place(place, span).map(|e| e.kind)
        else {
            return false;
        };
        let mut finder = Sets {
            agg,
            watched: vec![(field, "set")],
            found: None,
        };
        for body in runnable_bodies(&self.prog) {
            walk_stmts(&mut finder, body);
        }
        finder.found.is_some()
    }
}
