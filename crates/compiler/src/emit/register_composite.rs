//! Registers of structs or of bit strings wider than 64 bits (see
//! `lower::register_composite`). Their functions take the index and the
//! value by address: `p4bpf_read_NAME(index, &out)` fills `out` (zero
//! when the cell was never written) and `p4bpf_write_NAME(index, &value)`.
//! An index of at most 64 bits picks a cell of an array as for other
//! registers; a struct or wide index is the key of a hash map of `size`
//! cells, built zeroed (padding included, as the map compares bytes) and
//! filled field by field. A write to a full hash map is lost.

use super::maps::map_def;
use super::Emitter;
use crate::cstruct::{CStruct, Scalar};
use crate::ir::{
    composite_register_type, Expr, ExprKind, ExternId, ExternInstance, ExternKind, ExternOp,
    Program, Ty,
};
use p4bpf_layout::{ByteOrder, FieldLayout};

impl Emitter<'_> {
    /// The register's map and its read and write functions.
    pub(super) fn composite_register_definition(
        &self,
        x: &ExternInstance,
        value: &Ty,
        index: &Ty,
    ) -> String {
        let (name, size) = (&x.c_name, x.size);
        let value_c = self.declare(value, "").trim().to_string();
        let (map, param, key) = if composite_register_type(index) {
            let index_c = self.declare(index, "").trim().to_string();
            let map = map_def("BPF_MAP_TYPE_HASH", &index_c, &value_c, size, None, name);
            let param = match index {
                Ty::Struct(_) => format!("const {index_c} *index"),
                _ => "const void *index".to_string(),
            };
            (map, param, self.composite_key(index))
        } else {
            let map = map_def("BPF_MAP_TYPE_ARRAY", "u32", &value_c, size, None, name);
            let key =
                format!("if (index >= {size})\n        return 0;\n    u32 key = (u32)index;\n    ");
            (map, "u64 index".to_string(), key)
        };
        format!(
            "/* Register {}: {size} values kept across packets, 0 until written */\n{map}\
             static __always_inline int p4bpf_read_{name}({param}, void *out)\n{{\n    \
             __builtin_memset(out, 0, sizeof({value_c}));\n    {key}\
             void *cell = bpf_map_lookup_elem(&{name}, &key);\n    \
             if (cell)\n        __builtin_memcpy(out, cell, sizeof({value_c}));\n    return 0;\n}}\n\n\
             static __always_inline int p4bpf_write_{name}({param}, const void *value)\n{{\n    \
             {key}return bpf_map_update_elem(&{name}, &key, value, BPF_ANY);\n}}\n\n",
            x.name
        )
    }

    /// C statements declaring `key`, a copy of `*index` (zeroed first
    /// when a struct, for its padding).
    fn composite_key(&self, index: &Ty) -> String {
        if !matches!(index, Ty::Struct(_)) {
            return format!(
                "{};\n    __builtin_memcpy(key, index, sizeof(key));\n    ",
                self.declare(index, "key")
            );
        }
        let mut out = format!(
            "{};\n    __builtin_memset(&key, 0, sizeof(key));\n    ",
            self.declare(index, "key")
        );
        let mut fields = vec![];
        self.members(index, "", 0, &mut fields);
        for f in fields {
            match f.ty.width() {
                Some(w) if w > 64 => out.push_str(&format!(
                    "__builtin_memcpy(key{0}, index->{1}, sizeof(key{0}));\n    ",
                    f.name,
                    f.name.trim_start_matches('.')
                )),
                _ => out.push_str(&format!(
                    "key{} = index->{};\n    ",
                    f.name,
                    f.name.trim_start_matches('.')
                )),
            }
        }
        out
    }

    /// The C call of a composite register's operation: `args` are the
    /// index and (for a write) the value; `out`, a read's destination.
    pub(super) fn composite_register_call(
        &self,
        instance: ExternId,
        op: ExternOp,
        args: &[Expr],
        out: Option<&Expr>,
    ) -> Option<String> {
        let x = self.prog.extern_instance(instance)?;
        if !x.kind.is_composite_register() {
            return None;
        }
        let by_address = |e: &Expr| {
            if composite_register_type(&e.ty) {
                format!("&{}", self.lvalue(e))
            } else {
                self.expr(e)
            }
        };
        let mut passed: Vec<String> = args.iter().map(by_address).collect();
        let op = match op {
            ExternOp::Read => {
                passed.push(format!("&{}", self.lvalue(out?)));
                "read"
            }
            _ => "write",
        };
        Some(format!("p4bpf_{op}_{}({})", x.c_name, passed.join(", ")))
    }

    /// `lhs = r.read(index)` of a composite register, as the call filling `lhs`.
    pub(super) fn composite_register_read(&self, lhs: &Expr, rhs: &Expr) -> Option<String> {
        let ExprKind::ExternMethod {
            instance,
            op: ExternOp::Read,
            args,
        } = &rhs.kind
        else {
            return None;
        };
        self.composite_register_call(*instance, ExternOp::Read, args, Some(lhs))
    }
}

/// The composite registers, for the control plane to read and write their
/// cells by field.
pub fn composite_registers(prog: &Program) -> Vec<p4bpf_layout::CompositeRegister> {
    prog.externs
        .iter()
        .filter_map(|x| match &x.kind {
            ExternKind::Register { value, index, .. } if x.kind.is_composite_register() => {
                Some(p4bpf_layout::CompositeRegister {
                    name: x.name.clone(),
                    map: x.c_name.clone(),
                    index: if composite_register_type(index) {
                        c_fields(prog, index, "index")
                    } else {
                        vec![]
                    },
                    value: c_fields(prog, value, "value"),
                })
            }
            _ => None,
        })
        .collect()
}

/// The C layout of a register's index or value type: a struct's fields
/// (natural alignment, as the emitted struct), or one field `name`.
fn c_fields(prog: &Program, ty: &Ty, name: &str) -> Vec<FieldLayout> {
    let mut c = CStruct::new(false);
    let fields: Vec<(String, u32)> = match ty {
        Ty::Struct(agg) => prog.agg(*agg).map_or(vec![], |a| {
            a.fields
                .iter()
                .map(|f| (f.name.clone(), f.ty.width().unwrap_or(0)))
                .collect()
        }),
        ty => vec![(name.to_string(), ty.width().unwrap_or(0))],
    };
    for (field, width) in fields {
        let scalar = Scalar::for_width(width);
        let order = match scalar {
            Scalar::Bytes(_) => ByteOrder::Network,
            _ => ByteOrder::Host,
        };
        c.push(&field, &field, width, scalar, order);
    }
    c.describe(0)
}
