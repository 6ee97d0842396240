//! Counters and meters of table entries: PSA's and PNA's `DirectCounter`
//! and `DirectMeter`, v1model's `direct_counter` and `direct_meter`. An
//! instance has no map: each table naming it in a table property
//! (`psa_direct_counter = c;`, `counters = c;`) keeps a cell in every
//! entry's value, which the table updates when the entry is hit
//! (`emit::direct`). Method calls in actions lower to
//! [`ExprKind::ExternMethod`]s without arguments: a counter's `count()`
//! marks the action as counting; a meter's `execute()` or `read(colour)`
//! reads the colour the hit left in the meter's variable. PNA's
//! `count(bytes)` and `dpdk_execute([colour,] bytes)` carry a constant
//! length as an argument, which the hit uses instead of the packet's.

use super::{Binding, Lowerer};
use crate::ir::{
    self, CounterUnit, Expr, ExprKind, ExternId, ExternInstance, ExternKind, ExternOp, Stmt,
    Storage, Ty, VarStorage,
};
use crate::midend::visit::{walk_expr, Descend, Visitor};
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::check::Value;

/// BMv2's colour codes, the target meter's (`lower::meter`).
const COLOUR_CODES: [(&str, u64); 3] = [("GREEN", 0), ("YELLOW", 1), ("RED", 2)];

/// The table properties that attach direct externs, by architecture.
const COUNTER_PROPERTIES: [&str; 3] = ["counters", "psa_direct_counter", "pna_direct_counter"];
const METER_PROPERTIES: [&str; 3] = ["meters", "psa_direct_meter", "pna_direct_meter"];

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `DirectCounter<W>(type) c;`, `direct_counter(type) c;` and the
    /// meters' twins: an instance of size 1 (its cells are in entries).
    pub(super) fn direct_instance(
        &mut self,
        meter: bool,
        every_hit: bool,
        args: &[ast::Argument],
        name: &ast::Ident,
        decl: &ast::Decl,
    ) {
        let unit = match args.first().and_then(|a| self.env.value(&a.value)) {
            Some(Value::Member { member, .. }) => member.to_ascii_lowercase(),
            _ => String::new(),
        };
        let p4 = self.dotted(&name.name);
        let kind = match (meter, unit.as_str()) {
            (false, "packets") => Some(CounterUnit::Packets),
            (false, "bytes") => Some(CounterUnit::Bytes),
            (false, "packets_and_bytes") => Some(CounterUnit::PacketsAndBytes),
            (true, "packets" | "bytes") => None,
            _ => {
                let what = if meter {
                    "a direct meter takes a meter type (packets or bytes)"
                } else {
                    "a direct counter takes a counter type (packets, bytes or both)"
                };
                self.diags.error(decl.span, what);
                return;
            }
        };
        let kind = match kind {
            Some(unit) => {
                if unit.counts_bytes() {
                    self.packet_length();
                }
                ExternKind::DirectCounter { unit, every_hit }
            }
            None => {
                let bytes = unit == "bytes";
                if bytes {
                    self.packet_length();
                }
                let colour = self.new_var(format!("{p4}.colour"), Ty::bits(8), VarStorage::State);
                ExternKind::DirectMeter {
                    bytes,
                    every_hit,
                    colour,
                }
            }
        };
        let c_name = self.c_name(&p4);
        let id = ExternId(self.prog.externs.len() as u32);
        let p4_id = self.id_annotation(&decl.annotations);
        self.prog.externs.push(ExternInstance {
            name: p4,
            c_name,
            kind,
            size: 1,
            p4_id,
        });
        self.bind(&name.name, Binding::Extern(id));
    }

    /// Whether `property` attaches direct externs to a table.
    pub(super) fn is_direct_property(property: &str) -> bool {
        COUNTER_PROPERTIES.contains(&property) || METER_PROPERTIES.contains(&property)
    }

    /// `psa_direct_counter = c;` or `= { c, d };`: the instances named,
    /// each checked to be a direct extern of the property's sort.
    pub(super) fn direct_property(
        &mut self,
        property: &str,
        value: &'a ast::Expr,
        into: &mut Vec<ExternId>,
    ) {
        let meter = METER_PROPERTIES.contains(&property);
        let names: Vec<&ast::Expr> = match &value.kind {
            A::List(items) => items.iter().collect(),
            _ => vec![value],
        };
        for name in names {
            let found = match &name.kind {
                A::Path(p) => match self.lookup(&p.name.name) {
                    Some(Binding::Extern(id)) => Some(id),
                    _ => None,
                },
                _ => None,
            };
            let kind = found
                .and_then(|id| self.prog.extern_instance(id))
                .map(|x| x.kind.clone());
            match (found, kind) {
                (Some(id), Some(ExternKind::DirectCounter { .. })) if !meter => into.push(id),
                (Some(id), Some(ExternKind::DirectMeter { .. })) if meter => into.push(id),
                _ => {
                    let sort = if meter { "meter" } else { "counter" };
                    self.diags.error(
                        name.span,
                        format!("`{property}` names a direct {sort} instance of this control"),
                    );
                }
            }
        }
    }

    /// Direct externs need entries the control plane writes and the data
    /// path updates in place; says why a table of `storage` has none.
    pub(super) fn check_direct_storage(
        &mut self,
        direct: &[ExternId],
        storage: Storage,
        decl: &ast::Decl,
    ) {
        let meters = direct.iter().any(|id| {
            matches!(
                self.prog.extern_instance(*id).map(|x| &x.kind),
                Some(ExternKind::DirectMeter { .. })
            )
        });
        let why = match storage {
            _ if direct.is_empty() => return,
            Storage::Code => {
                "its entries are all const, compiled into code with no value to count in"
            }
            // The kernel allows a `bpf_spin_lock` in hash and array values only.
            Storage::LpmTrie if meters => "an lpm trie's values cannot hold a meter's lock",
            _ => return,
        };
        self.diags.error(
            decl.span,
            format!("direct counters and meters are not supported on this table: {why}"),
        );
    }

    /// The target's code of a constant colour (`PSA_MeterColor_t.YELLOW`).
    fn constant_colour(&mut self, e: &ast::Expr) -> Option<u64> {
        match self.env.value(e) {
            Some(Value::Member { member, .. }) => COLOUR_CODES
                .iter()
                .find(|(name, _)| *name == member)
                .map(|(_, code)| *code),
            _ => None,
        }
    }

    /// `dpdk_execute`'s colour as the meter's code, computed when the
    /// table hits, before the action: a constant, or an expression of the
    /// control's variables and headers (not of the action's parameters).
    fn hit_time_colour(&mut self, colour: &'a ast::Expr, codes: &[u64; 3]) -> Option<Expr> {
        if let Some(code) = self.constant_colour(colour) {
            return Some(Expr::int(code, Ty::bits(8)));
        }
        let lowered = self.expr(colour)?;
        let mut params = ActionParams(&self.prog, false);
        walk_expr(&mut params, &lowered);
        if params.1 {
            self.diags.error(
                colour.span,
                "a direct meter's colour-aware `dpdk_execute` takes a colour known when the table hits, before the action: not one of the action's parameters",
            );
            return None;
        }
        Some(super::meter::from_enum(lowered, codes))
    }

    /// The constant packet length a direct extern's `method` takes.
    fn constant_length(&mut self, e: &ast::Expr, method: &str) -> Option<Expr> {
        let value = self.env.value(e);
        match value.as_ref().and_then(|v| v.int()) {
            Some(bytes) => Some(Expr::int(
                u32::try_from(bytes).unwrap_or(u32::MAX),
                Ty::bits(32),
            )),
            None => {
                self.diags.error(
                    e.span,
                    format!("a direct extern's `{method}` takes a constant length: the entry's cell is updated when the table hits it, before the action"),
                );
                None
            }
        }
    }

    /// Refuses an action of the table that uses a direct extern the
    /// table does not name (its cells would be in no entry).
    pub(super) fn check_direct_uses(
        &mut self,
        actions: &[ir::ActionId],
        direct: &[ExternId],
        decl: &ast::Decl,
    ) {
        for action in actions {
            let uses = crate::midend::direct_uses::direct_uses(&self.prog, *action);
            let Some((missing, _)) = uses.iter().find(|(x, _)| !direct.contains(x)) else {
                continue;
            };
            let extern_name = self.prog.extern_instance(*missing).map(|x| x.name.clone());
            let action_name = self.prog.action(*action).map(|a| a.name.clone());
            self.diags.error(
                decl.span,
                format!(
                    "action `{}` uses the direct extern `{}`, which this table does not name in its direct counter or meter property",
                    action_name.unwrap_or_default(),
                    extern_name.unwrap_or_default()
                ),
            );
        }
    }

    /// `count()` of a direct counter; `execute([colour])` of PSA's and
    /// PNA's direct meter; v1model's `read(out colour)`.
    pub(super) fn direct_method(
        &mut self,
        instance: ExternId,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        let kind = self.prog.extern_instance(instance)?.kind.clone();
        let used = |op, ty| Expr {
            kind: ExprKind::ExternMethod {
                instance,
                op,
                args: vec![],
            },
            ty,
        };
        match (kind, method, args) {
            (ExternKind::DirectCounter { .. }, "count", []) => {
                Some(used(ExternOp::Count, Ty::Void))
            }
            // PNA's `count(bytes)`: the byte count is the argument's.
            (ExternKind::DirectCounter { .. }, "count", [bytes]) => {
                let bytes = self.constant_length(&bytes.value, "count")?;
                Some(Expr {
                    kind: ExprKind::ExternMethod {
                        instance,
                        op: ExternOp::Count,
                        args: vec![bytes],
                    },
                    ty: Ty::Void,
                })
            }
            // PNA's `dpdk_execute([colour,] bytes)`: `execute` of that many bytes.
            (ExternKind::DirectMeter { .. }, "dpdk_execute", [colour @ .., bytes])
                if colour.len() <= 1 =>
            {
                let ty = self.env.expr_ty(call, &mut self.diags)?;
                let codes = self.colour_codes(call)?;
                let colour = match colour {
                    [c] => self.hit_time_colour(&c.value, &codes)?,
                    _ => Expr::int(0u32, Ty::bits(8)),
                };
                let bytes = self.constant_length(&bytes.value, "dpdk_execute")?;
                let execute = Expr {
                    kind: ExprKind::ExternMethod {
                        instance,
                        op: ExternOp::Execute,
                        args: vec![colour, bytes],
                    },
                    ty: Ty::bits(8),
                };
                Some(super::meter::to_enum(execute, &codes, ty))
            }
            (ExternKind::DirectMeter { .. }, "execute", []) => {
                let ty = self.env.expr_ty(call, &mut self.diags)?;
                let codes = self.colour_codes(call)?;
                Some(super::meter::to_enum(
                    used(ExternOp::Execute, Ty::bits(8)),
                    &codes,
                    ty,
                ))
            }
            (ExternKind::DirectMeter { .. }, "execute", [colour]) => {
                let ty = self.env.expr_ty(call, &mut self.diags)?;
                let codes = self.colour_codes(call)?;
                let Some(code) = self.constant_colour(&colour.value) else {
                    self.diags.error(
                        colour.value.span,
                        "a direct meter's colour-aware `execute` takes a constant colour: the entry's meter runs when the table hits it, before the action",
                    );
                    return None;
                };
                let execute = Expr {
                    kind: ExprKind::ExternMethod {
                        instance,
                        op: ExternOp::Execute,
                        args: vec![Expr::int(code, Ty::bits(8))],
                    },
                    ty: Ty::bits(8),
                };
                Some(super::meter::to_enum(execute, &codes, ty))
            }
            (ExternKind::DirectMeter { .. }, "read", [result]) => {
                let lhs = self.expr(&result.value)?;
                let ty = lhs.ty.clone();
                self.pending.push(Stmt::Assign {
                    lhs,
                    rhs: Expr::cast(used(ExternOp::Execute, Ty::bits(8)), ty),
                });
                Some(Expr {
                    kind: ExprKind::Bool(true),
                    ty: Ty::Void,
                })
            }
            (kind, _, _) => {
                let object = match kind {
                    ExternKind::DirectMeter { .. } => "direct meter",
                    _ => "direct counter",
                };
                self.diags.error(
                    call.span,
                    format!(
                        "a {object} has no method `{method}` taking {} arguments",
                        args.len()
                    ),
                );
                None
            }
        }
    }
}

/// Finds a read of an action's parameter (`.1`).
struct ActionParams<'p>(&'p ir::Program, bool);

impl Visitor for ActionParams<'_> {
    fn expr(&mut self, e: &Expr) -> Descend {
        if let ExprKind::Var(v) = e.kind {
            let storage = self.0.var(v).map(|v| v.storage);
            self.1 |= storage.is_some_and(|s| s != VarStorage::State);
        }
        Descend::Yes
    }
}
