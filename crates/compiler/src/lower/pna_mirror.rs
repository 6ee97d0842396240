//! PNA's `mirror_packet(slot, session)` ([`ir::Mirror`]): each slot is a
//! variable holding the session of the slot's last call plus one, 0 until
//! a call (every pass starts with 0: no copy). A constant slot past the
//! architecture's slots is refused; a slot computed at run time picks its
//! variable by comparison, and one out of range asks for nothing.

use super::Lowerer;
use crate::ir::{self, BinOp, Expr, ExprKind, Stmt, Ty, VarStorage};
use p4bpf_front::ast;

/// A slot variable's width: a 16-bit session plus one.
const SLOT_WIDTH: u32 = 32;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `mirror_packet(slot, session)` with `slots` slots: the slot's
    /// variable takes `session + 1`.
    pub(super) fn mirror_packet(
        &mut self,
        slots: u32,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Expr> {
        let [slot, session] = args else {
            self.diags.error(
                e.span,
                "`mirror_packet` takes a mirror slot and a mirror session",
            );
            return None;
        };
        let constant_slot = self.env.value(&slot.value).and_then(|v| v.int().cloned());
        let slot_expr = self.expr(&slot.value)?;
        let session = self.expr(&session.value)?;
        let value = Expr::binary(
            BinOp::Add,
            session.cast(Ty::bits(SLOT_WIDTH)),
            Expr::int(1u32, Ty::bits(SLOT_WIDTH)),
        );
        let vars = self.mirror_slots(slots, e);
        let assign = |i: usize| Stmt::Assign {
            lhs: vars[i].clone(),
            rhs: value.clone(),
        };
        if let Some(n) = constant_slot {
            let Some(i) = usize::try_from(&n).ok().filter(|i| *i < vars.len()) else {
                self.diags.error(
                    slot.value.span,
                    format!(
                        "PNA gives {slots} mirror slots, 0 to {}: there is no slot {n}",
                        slots - 1
                    ),
                );
                return None;
            };
            self.pending.push(assign(i));
        } else {
            // `if (slot == 0) .. else if (slot == 1) ..`, built from the last.
            let chosen = (0..vars.len()).rev().fold(vec![], |other, i| {
                vec![Stmt::If {
                    cond: Expr::binary(
                        BinOp::Eq,
                        slot_expr.clone(),
                        Expr::int(i as u32, slot_expr.ty.clone()),
                    ),
                    then: vec![assign(i)],
                    other,
                }]
            });
            self.pending.extend(chosen);
        }
        Some(Expr {
            kind: ExprKind::Bool(true),
            ty: Ty::Void,
        })
    }

    /// The slots' variables, made at the first call, each 0 when a pass
    /// starts.
    fn mirror_slots(&mut self, slots: u32, call: &ast::Expr) -> Vec<Expr> {
        if let Some(mirror) = &self.prog.intrinsics.mirror {
            return mirror.slots.clone();
        }
        let mut vars = vec![];
        for i in 0..slots {
            let ty = Ty::bits(SLOT_WIDTH);
            let var = self.new_var(format!("pna_mirror_slot{i}"), ty.clone(), VarStorage::State);
            let place = Expr {
                kind: ExprKind::Var(var),
                ty: ty.clone(),
            };
            self.prog.intrinsics.defaults.push(Stmt::Assign {
                lhs: place.clone(),
                rhs: Expr::int(0u32, ty),
            });
            vars.push(place);
        }
        self.prog.intrinsics.mirror = Some(ir::Mirror {
            slots: vars.clone(),
            at: self.diags.unit.resolve(call.span),
        });
        vars
    }
}
