//! The architecture's externs: instances of its extern object types
//! (`CounterArray`, `Register`) as generic [`ExternInstance`]s, their
//! method calls as [`ExprKind::ExternMethod`], and calls of its extern
//! functions as the architecture's [`Function`] table says.

use super::{Binding, Lowerer};
use crate::arch::{Function, Object};
use crate::ir::{
    Builtin, CounterUnit, Expr, ExprKind, ExternId, ExternInstance, ExternKind, ExternOp, Stmt, Ty,
    VarStorage,
};
use num_traits::ToPrimitive;
use p4bpf_front::ast::{self, ExprKind as A};
use p4bpf_front::check::{Type, Value};

impl<'a, 'u> Lowerer<'a, 'u> {
    /// `T(args) name;` where `T` is one of the architecture's extern types.
    pub(super) fn extern_instance(
        &mut self,
        type_name: &str,
        args: &'a [ast::Argument],
        name: &ast::Ident,
        decl: &ast::Decl,
    ) {
        let object = self.arch.and_then(|a| a.object(type_name));
        let kind = match object {
            Some(Object::CounterArray) => self.counter_kind(args, decl),
            Some(Object::PsaCounter) => self.psa_counter_kind(args, decl),
            Some(Object::Register | Object::RegisterReadOut) => {
                self.register_kind(name, args, decl)
            }
            Some(Object::TypedCounter) => {
                self.typed_counter_unit(args, decl)
                    .map(|unit| ExternKind::Counter {
                        sparse: false,
                        unit,
                    })
            }
            Some(Object::InternetChecksum) => {
                self.internet_checksum_instance(name);
                return;
            }
            Some(Object::Meter) => self.meter_kind(args, decl),
            Some(Object::Random) => {
                self.random_instance(name, args, decl);
                return;
            }
            Some(Object::CrcChecksum) => {
                self.crc_checksum_instance(name, args, decl);
                return;
            }
            Some(Object::Hash) => {
                self.hash_instance(name, args, decl);
                return;
            }
            Some(Object::ActionProfile | Object::ActionSelector) => {
                if let Some(id) = self.profile_instance(type_name, &name.name, args, decl) {
                    self.bind(&name.name, Binding::Profile(id));
                }
                return;
            }
            Some(Object::DirectCounter { every_hit }) => {
                self.direct_instance(false, every_hit, args, name, decl);
                return;
            }
            Some(Object::DirectMeter { every_hit }) => {
                self.direct_instance(true, every_hit, args, name, decl);
                return;
            }
            Some(Object::Digest) => {
                self.digest_instance(name, decl);
                return;
            }
            Some(Object::IpsecAccelerator) => {
                self.ipsec_instance(name, decl);
                return;
            }
            Some(Object::Unsupported(why)) => {
                self.diags.error(
                    decl.span,
                    format!("`{type_name}` is not supported yet: {why}"),
                );
                None
            }
            None => {
                let arch = self.prog.arch.name();
                self.diags.error(
                    decl.span,
                    format!("instances of `{type_name}` are not supported by the eBPF target for {arch}"),
                );
                None
            }
        };
        let Some(kind) = kind else {
            return;
        };
        let Some(size) = args
            .first()
            .and_then(|size| self.env.const_u32(&size.value, &mut self.diags))
        else {
            return;
        };
        let p4 = self.dotted(&name.name);
        let c_name = self.c_name(&p4);
        let id = ExternId(self.prog.externs.len() as u32);
        let p4_id = self.id_annotation(&decl.annotations);
        self.prog.externs.push(ExternInstance {
            name: p4,
            c_name,
            kind,
            size: size.max(1),
            p4_id,
        });
        self.bind(&name.name, Binding::Extern(id));
    }

    /// `counter(bit<32> size, CounterType type)`: what it counts.
    fn typed_counter_unit(
        &mut self,
        args: &[ast::Argument],
        decl: &ast::Decl,
    ) -> Option<CounterUnit> {
        let member = match args {
            [_, unit] => match self.env.value(&unit.value) {
                Some(Value::Member { member, .. }) => member.as_str(),
                _ => "",
            },
            _ => "",
        };
        match member {
            "packets" => Some(CounterUnit::Packets),
            "bytes" => Some(CounterUnit::Bytes),
            "packets_and_bytes" => Some(CounterUnit::PacketsAndBytes),
            _ => {
                self.diags.error(
                    decl.span,
                    "`counter` takes a size and a `CounterType`: `counter(1024, CounterType.packets)`",
                );
                None
            }
        }
    }

    /// `CounterArray(bit<32> max_index, bool sparse)`.
    fn counter_kind(&mut self, args: &[ast::Argument], decl: &ast::Decl) -> Option<ExternKind> {
        let [_, sparse] = args else {
            self.diags
                .error(decl.span, "`CounterArray` takes a size and a sparse flag");
            return None;
        };
        let sparse = matches!(self.env.value(&sparse.value), Some(Value::Bool(true)));
        Some(ExternKind::Counter {
            sparse,
            unit: CounterUnit::Packets,
        })
    }

    /// PSA's and PNA's `Counter<W, S>(size, type)`: packets, bytes (the
    /// frame's length at ingress) or both per index.
    fn psa_counter_kind(&mut self, args: &[ast::Argument], decl: &ast::Decl) -> Option<ExternKind> {
        let counted = args.get(1).and_then(|a| self.env.value(&a.value));
        let member = match counted {
            Some(Value::Member { member, .. }) => member.as_str(),
            _ => "",
        };
        let unit = match member {
            "PACKETS" => CounterUnit::Packets,
            "BYTES" => CounterUnit::Bytes,
            "PACKETS_AND_BYTES" => CounterUnit::PacketsAndBytes,
            _ => {
                self.diags.error(
                    decl.span,
                    "`Counter` takes a size and a counter type: `Counter<bit<32>, bit<32>>(1024, PSA_CounterType_t.PACKETS)`",
                );
                return None;
            }
        };
        Some(ExternKind::Counter {
            sparse: false,
            unit,
        })
    }

    /// `Register<T, S>(bit<32> size)` and PSA's and PNA's
    /// `Register<T, S>(bit<32> size, T initial_value)`: bit-string values
    /// and indexes of at most 64 bits, the cells of an array map.
    fn register_kind(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Argument],
        decl: &ast::Decl,
    ) -> Option<ExternKind> {
        let checked = self.env.checked;
        let types = match checked.decl_type(name) {
            Some(Type::Named { args: types, .. }) => types.as_slice(),
            _ => &[],
        };
        let (value, index) = match (types, args) {
            // v1model's `register<T>`: indexes are `bit<32>`.
            ([value], [_]) => (
                self.env.ty(value, decl.span, &mut self.diags)?,
                Ty::bits(32),
            ),
            ([value, index], [_] | [_, _]) => (
                self.env.ty(value, decl.span, &mut self.diags)?,
                self.env.ty(index, decl.span, &mut self.diags)?,
            ),
            _ => {
                self.diags.error(
                    decl.span,
                    "`Register` takes a value and an index type and a size: `Register<bit<32>, bit<32>>(1024)`",
                );
                return None;
            }
        };
        if !self.register_type_fits(&value) || !self.register_type_fits(&index) {
            self.diags.error(
                decl.span,
                "`Register` values and indexes must be bit strings or structs of bit strings, bools and such structs on the eBPF target",
            );
            return None;
        }
        let (initial, initial_fields) = match args.get(1) {
            Some(initial) if crate::ir::composite_register_type(&value) => {
                (0, self.composite_initial(&initial.value, &value)?)
            }
            Some(initial) => (self.register_initial(&initial.value, &value)?, vec![]),
            None => (0, vec![]),
        };
        Some(ExternKind::Register {
            value,
            index,
            initial,
            initial_fields,
        })
    }

    /// A register's `initial_value`: a constant of its value type (or an
    /// untyped integer), as that type's bits.
    fn register_initial(&mut self, e: &ast::Expr, value: &Ty) -> Option<u64> {
        let width = value.width().unwrap_or(64);
        let bits = match self.env.value(e) {
            Some(Value::Int { value: n, ty }) if of_width(ty, width) => {
                super::types::to_bits(n, width).to_u64()
            }
            _ => None,
        };
        if bits.is_none() {
            self.diags.error(
                e.span,
                format!("a `Register`'s initial value must be a constant of its value type, `bit<{width}>`"),
            );
        }
        bits
    }

    /// `instance.method(args)` of an extern object instance: the operation,
    /// or a diagnostic naming the extern and the method.
    pub(super) fn extern_method(
        &mut self,
        instance: ExternId,
        method: &str,
        args: &'a [ast::Argument],
        call: &ast::Expr,
    ) -> Option<Expr> {
        let kind = self.prog.extern_instance(instance)?.kind.clone();
        match (&kind, method, args) {
            (ExternKind::Register { .. }, "read", [result, index]) => {
                return self.register_read_out(instance, &result.value, &index.value);
            }
            (ExternKind::Counter { .. }, "count", [index]) => {
                return self.typed_count(instance, &index.value);
            }
            (ExternKind::Meter { bytes }, _, _) => {
                return self.meter_method(instance, *bytes, method, args, call);
            }
            (ExternKind::DirectCounter { .. } | ExternKind::DirectMeter { .. }, _, _) => {
                return self.direct_method(instance, method, args, call);
            }
            _ => {}
        }
        // Argument types are the checker's, from the extern's declaration.
        let (op, result) = match (&kind, method, args.len()) {
            (ExternKind::Counter { .. }, "increment" | "count", 1)
            | (ExternKind::Counter { .. }, "add", 2) => (ExternOp::Count, Ty::Void),
            (ExternKind::Register { value, .. }, "read", 1) => (ExternOp::Read, value.clone()),
            (ExternKind::Register { .. }, "write", 2) => (ExternOp::Write, Ty::Void),
            _ => {
                let object = match kind {
                    ExternKind::Counter { .. } => "CounterArray",
                    ExternKind::Register { .. } => "Register",
                    ExternKind::Meter { .. } => "Meter",
                    ExternKind::DirectCounter { .. } => "DirectCounter",
                    ExternKind::DirectMeter { .. } => "DirectMeter",
                };
                self.diags.error(
                    call.span,
                    format!(
                        "`{object}` has no method `{method}` taking {} arguments",
                        args.len()
                    ),
                );
                return None;
            }
        };
        let mut lowered = Vec::with_capacity(args.len());
        for a in args {
            lowered.push(self.expr(&a.value)?);
        }
        let call = Expr {
            kind: ExprKind::ExternMethod {
                instance,
                op,
                args: lowered,
            },
            ty: result,
        };
        if kind.is_composite_register() {
            return Some(self.composite_register_call(call));
        }
        Some(call)
    }

    /// v1model's `r.read(out result, index)`: `result = read(index)`.
    fn register_read_out(
        &mut self,
        instance: ExternId,
        result: &'a ast::Expr,
        index: &'a ast::Expr,
    ) -> Option<Expr> {
        let lhs = self.expr(result)?;
        let mut index = self.expr(index)?;
        if crate::ir::composite_register_type(&index.ty) {
            index = self.place(index);
        }
        let ty = lhs.ty.clone();
        self.pending.push(Stmt::Assign {
            lhs,
            rhs: Expr {
                kind: ExprKind::ExternMethod {
                    instance,
                    op: ExternOp::Read,
                    args: vec![index],
                },
                ty,
            },
        });
        Some(void())
    }

    /// `c.count(index)` of v1model's `counter` and PSA's and PNA's
    /// `Counter`: adds 1, or the packet's bytes.
    fn typed_count(&mut self, instance: ExternId, index: &'a ast::Expr) -> Option<Expr> {
        let index = self.expr(index)?;
        let mut args = vec![self.cell_index(instance, index)];
        let counts_bytes = matches!(
            self.prog.extern_instance(instance).map(|x| &x.kind),
            Some(ExternKind::Counter { unit, .. }) if unit.counts_bytes()
        );
        if counts_bytes {
            args.push(self.packet_length());
        }
        Some(Expr {
            kind: ExprKind::ExternMethod {
                instance,
                op: ExternOp::Count,
                args,
            },
            ty: Ty::Void,
        })
    }

    /// The packet's length in bytes: the architecture's metadata, else a
    /// variable of p4bpf's the entry sets to the frame's length at
    /// ingress (actions, being functions of the state, see it too).
    pub(super) fn packet_length(&mut self) -> Expr {
        if let Some(length) = self.prog.intrinsics.packet_length.clone() {
            return length;
        }
        let var = self.new_var("frame_length".into(), Ty::bits(32), VarStorage::State);
        let length = Expr {
            kind: ExprKind::Var(var),
            ty: Ty::bits(32),
        };
        self.prog.intrinsics.packet_length = Some(length.clone());
        length
    }

    /// A call of the architecture's extern function `name`, if it has one;
    /// statements it needs first go to [`Lowerer::pending`].
    pub(super) fn arch_function(
        &mut self,
        name: &str,
        args: &'a [ast::Argument],
        e: &ast::Expr,
    ) -> Option<Option<Expr>> {
        let function = self.arch.and_then(|a| a.function(name))?;
        Some(match function {
            Function::Builtin(func, width) => {
                let mut lowered = Vec::with_capacity(args.len());
                for a in args {
                    match self.expr(&a.value) {
                        Some(x) => lowered.push(x),
                        None => return Some(None),
                    }
                }
                self.prog.sends_perf_events |= func == Builtin::PerfEventOutput;
                Some(Expr {
                    kind: ExprKind::Builtin {
                        func,
                        args: lowered,
                    },
                    ty: Ty::bits(width),
                })
            }
            Function::SetCode(place, code) => {
                let lhs = self.arch_place(&place, e.span)?;
                self.pending.push(Stmt::Assign {
                    rhs: Expr {
                        kind: ExprKind::Int(code.into()),
                        ty: lhs.ty.clone(),
                    },
                    lhs,
                });
                Some(void())
            }
            Function::Hash(func) => self.hash(func, args, e),
            Function::Truncate => self.truncate(args, e),
            Function::SendToPort {
                verdict,
                port,
                code,
                host,
            } => self.send_to_port(args, e, [verdict, port], code, host),
            Function::Select { first } => self.select(name, args, e, first),
            Function::PortIs { port, equal } => self.port_is(name, args, e, port, equal),
            Function::AddEntry => self.add_entry(args, e),
            Function::AddEntryIf => self.add_entry_if(args, e),
            Function::HashWithAlgorithm => self.hash_with_algorithm(args, e),
            Function::VerifyChecksum(flag) => self.checksum(Some(flag), args, e),
            Function::UpdateChecksum => self.checksum(None, args, e),
            Function::VerifyChecksumWithPayload(flag) => {
                self.checksum_with_payload(Some(flag), args, e)
            }
            Function::UpdateChecksumWithPayload => self.checksum_with_payload(None, args, e),
            Function::Random => self.random(args, e),
            Function::Assert(place, code) => self.assert(place, code, args, e),
            Function::Digest => self.digest_call(args, e),
            Function::Ignore => Some(void()),
            Function::EntryTimer(call) => self.entry_timer_call(call, args, e),
            Function::SkbMeta(call) => self.skb_meta_call(name, call, args, e),
            Function::Unsupported(why) => {
                self.diags
                    .error(e.span, format!("`{name}` is not supported yet: {why}"));
                None
            }
            Function::Mirror { slots } => self.mirror_packet(slots, args, e),
            Function::AnotherPass(pass) => self.another_pass_call(pass, args, e),
            Function::Clone { field_list } => self.v1model_clone_call(field_list, args, e),
        })
    }

    /// `truncate(len)`: stores `len` where the target reads the cut from
    /// after the last step (no cut until a call: all ones).
    fn truncate(&mut self, args: &'a [ast::Argument], e: &ast::Expr) -> Option<Expr> {
        let [len] = args else {
            self.diags
                .error(e.span, "`truncate` takes a length in bytes");
            return None;
        };
        let len = self.expr(&len.value)?;
        let place = match self.prog.intrinsics.truncate.clone() {
            Some(place) => place,
            None => {
                let var = self.new_var("truncate_to".into(), Ty::bits(32), VarStorage::State);
                let place = Expr {
                    kind: ExprKind::Var(var),
                    ty: Ty::bits(32),
                };
                self.prog.intrinsics.defaults.push(Stmt::Assign {
                    lhs: place.clone(),
                    rhs: Expr {
                        kind: ExprKind::Int(u32::MAX.into()),
                        ty: Ty::bits(32),
                    },
                });
                self.prog.intrinsics.truncate = Some(place.clone());
                place
            }
        };
        self.pending.push(Stmt::Assign {
            lhs: place,
            rhs: len,
        });
        Some(void())
    }

    /// `hash(out result, algorithm, { fields })`: `result = func(fields)`.
    fn hash(&mut self, func: Builtin, args: &'a [ast::Argument], e: &ast::Expr) -> Option<Expr> {
        let [result, _, data] = args else {
            self.diags.error(
                e.span,
                "`hash` takes a result, an algorithm and a list of fields",
            );
            return None;
        };
        let lhs = self.expr(&result.value)?;
        let fields: Vec<&'a ast::Expr> = match &data.value.kind {
            A::List(items) => items.iter().collect(),
            _ => vec![&data.value],
        };
        let mut words = Vec::with_capacity(fields.len());
        for f in fields {
            let x = self.expr(f)?;
            if !matches!(x.ty, Ty::Bits { width, .. } if width <= 64) {
                self.diags.error(
                    f.span,
                    "`hash` hashes bit strings of at most 64 bits each on the eBPF target",
                );
                return None;
            }
            words.push(x);
        }
        let ty = lhs.ty.clone();
        self.pending.push(Stmt::Assign {
            lhs,
            rhs: Expr {
                kind: ExprKind::Builtin { func, args: words },
                ty,
            },
        });
        Some(void())
    }
}

/// The value of a call done for its effect.
fn void() -> Expr {
    Expr {
        kind: ExprKind::Bool(true),
        ty: Ty::Void,
    }
}

/// Whether a constant of type `ty` can stand for a `bit<width>` value.
pub(super) fn of_width(ty: &Type, width: u32) -> bool {
    match ty {
        Type::InfInt => true,
        Type::Bit(w) | Type::Int(w) => *w == width,
        _ => false,
    }
}
