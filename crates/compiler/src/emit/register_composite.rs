//! Registers of structs or of bit strings wider than 64 bits (see
//! `lower::register_composite`). Their functions take the index and the
//! value by address: `p4bpf_read_NAME(index, &out)` fills `out` (the
//! initial value when the cell was never written or the index is past
//! the end, as for a bit-string register) and `p4bpf_write_NAME(index, &value)`.
//! An index of at most 64 bits picks a cell of an array as for other
//! registers; a struct or wide index is the key of a hash map of `size`
//! cells, built zeroed (padding included, as the map compares bytes) and
//! filled field by field. A write to a full hash map is lost.

use super::maps::map_def;
use super::Emitter;
use crate::cstruct::Scalar;
use crate::ir::{
    composite_register_type, Expr, ExprKind, ExternId, ExternInstance, ExternKind, ExternOp,
    Program, Ty,
};
use num_bigint::BigUint;
use p4bpf_layout::{ByteOrder, FieldLayout};

impl Emitter<'_> {
    /// The register's map and its read and write functions. With an
    /// initial value a cell holds value XOR initial, byte by byte as C lays
    /// the value out, so that a zeroed (new or reset) cell reads as it.
    pub(super) fn composite_register_definition(
        &self,
        x: &ExternInstance,
        value: &Ty,
        index: &Ty,
        initial: &[BigUint],
    ) -> String {
        let (name, size) = (&x.c_name, x.size);
        let value_c = self.declare(value, "").trim().to_string();
        let (map, param, key, lookup) = if composite_register_type(index) {
            let index_c = self.declare(index, "").trim().to_string();
            let map = map_def("BPF_MAP_TYPE_HASH", &index_c, &value_c, size, None, name);
            let param = match index {
                Ty::Struct(_) => format!("const {index_c} *index"),
                _ => "const void *index".to_string(),
            };
            let key = self.composite_key(index);
            let lookup = format!("{key}void *cell = bpf_map_lookup_elem(&{name}, &key);\n    ");
            (map, param, key, lookup)
        } else {
            let map = map_def("BPF_MAP_TYPE_ARRAY", "u32", &value_c, size, None, name);
            let key =
                format!("if (index >= {size})\n        return 0;\n    u32 key = (u32)index;\n    ");
            // Past the end no cell is found: the read gives the initial
            // value, as a bit-string register's does.
            let lookup = format!(
                "u32 key = (u32)index;\n    \
                 void *cell = index < {size} ? bpf_map_lookup_elem(&{name}, &key) : 0;\n    "
            );
            (map, "u64 index".to_string(), key, lookup)
        };
        let image = initial_image(self.prog, value, initial);
        let (start, read_xor, write) = if image.is_empty() {
            let write = format!("{key}return bpf_map_update_elem(&{name}, &key, value, BPF_ANY);");
            ("0 until written".to_string(), String::new(), write)
        } else {
            let start = "its initial value until written: a cell holds value ^ initial, \
                         so a zeroed (new or reset) cell reads as the initial value";
            let write = format!(
                "{};\n    __builtin_memcpy(&cell, value, sizeof(cell));\n    {}{key}\
                 return bpf_map_update_elem(&{name}, &key, &cell, BPF_ANY);",
                self.declare(value, "cell"),
                xor_image(&image, "(u8 *)&cell"),
            );
            (start.to_string(), xor_image(&image, "(u8 *)out"), write)
        };
        format!(
            "/* Register {}: {size} values kept across packets, {start} */\n{map}\
             static __always_inline int p4bpf_read_{name}({param}, void *out)\n{{\n    \
             __builtin_memset(out, 0, sizeof({value_c}));\n    {lookup}\
             if (cell)\n        __builtin_memcpy(out, cell, sizeof({value_c}));\n    \
             {read_xor}return 0;\n}}\n\n\
             static __always_inline int p4bpf_write_{name}({param}, const void *value)\n{{\n    \
             {write}\n}}\n\n",
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
            ExternKind::Register {
                value,
                index,
                initial_fields,
                ..
            } if x.kind.is_composite_register() => Some(p4bpf_layout::CompositeRegister {
                name: x.name.clone(),
                map: x.c_name.clone(),
                index: if composite_register_type(index) {
                    c_fields(prog, index, "index")
                } else {
                    vec![]
                },
                value: c_fields(prog, value, "value"),
                initial: initial_image(prog, value, initial_fields),
            }),
            _ => None,
        })
        .collect()
}

/// The C layout of a register's index or value type: a struct's fields,
/// nested ones named `outer.inner` (natural alignment, as the emitted
/// structs), or one field `name`.
fn c_fields(prog: &Program, ty: &Ty, name: &str) -> Vec<FieldLayout> {
    let path = if matches!(ty, Ty::Struct(_)) {
        ""
    } else {
        name
    };
    c_layout(prog, ty, path).fields
}

/// Fields, `sizeof` and alignment of a C value of type `ty`.
struct CLayout {
    fields: Vec<FieldLayout>,
    size: u32,
    align: u32,
}

/// The layout of `ty` as C lays it out, its fields named from `path`.
fn c_layout(prog: &Program, ty: &Ty, path: &str) -> CLayout {
    let Ty::Struct(agg) = ty else {
        let width = ty.width().unwrap_or(0);
        let scalar = Scalar::for_width(width);
        let byte_order = match scalar {
            Scalar::Bytes(_) => ByteOrder::Network,
            _ => ByteOrder::Host,
        };
        let field = FieldLayout {
            name: path.to_string(),
            bit_width: width,
            byte_offset: 0,
            byte_len: scalar.size(),
            byte_order,
            signed: matches!(ty, Ty::Bits { signed: true, .. }),
        };
        return CLayout {
            fields: vec![field],
            size: scalar.size(),
            align: scalar.align(),
        };
    };
    let members = prog.agg(*agg).map_or(&[][..], |a| a.fields.as_slice());
    let mut out = CLayout {
        fields: vec![],
        size: 0,
        align: 1,
    };
    for f in members {
        let name = match path {
            "" => f.name.clone(),
            p => format!("{p}.{}", f.name),
        };
        let inner = c_layout(prog, &f.ty, &name);
        let at = out.size.next_multiple_of(inner.align);
        out.fields
            .extend(inner.fields.into_iter().map(|l| FieldLayout {
                byte_offset: l.byte_offset + at,
                ..l
            }));
        out.size = at + inner.size;
        out.align = out.align.max(inner.align);
    }
    out.size = out.size.next_multiple_of(out.align).max(1);
    out
}

/// The bytes of a cell holding `initial` (one value per field of `value`),
/// as C lays the value out: each field big-endian in its bytes, reversed
/// when kept in host order. Empty when the initial value is zero.
fn initial_image(prog: &Program, value: &Ty, initial: &[BigUint]) -> Vec<u8> {
    let fields = c_fields(prog, value, "value");
    let size = fields.iter().map(|f| f.byte_offset + f.byte_len).max();
    let mut image = vec![0u8; size.unwrap_or(0) as usize];
    for (field, bits) in fields.iter().zip(initial) {
        let mut bytes = field_image(field, bits);
        if field.byte_order == ByteOrder::Host {
            bytes.reverse();
        }
        let at = field.byte_offset as usize;
        if let Some(slot) = image.get_mut(at..at + bytes.len()) {
            slot.copy_from_slice(&bytes);
        }
    }
    if image.iter().all(|b| *b == 0) {
        return vec![];
    }
    image
}

/// A field's initial value, big-endian, in its `byte_len` bytes: an int
/// sign-extended from bit W-1, as the data path keeps it in its C type.
fn field_image(field: &FieldLayout, bits: &BigUint) -> Vec<u8> {
    let len = field.byte_len as usize;
    let negative = field.signed && field.bit_width > 0 && bits.bit(u64::from(field.bit_width) - 1);
    let bits = match negative {
        // -x as len bytes of two's complement: the W bits with every bit above W set.
        true => {
            bits | ((BigUint::from(1u8) << (8 * len)) - (BigUint::from(1u8) << field.bit_width))
        }
        false => bits.clone(),
    };
    let digits = bits.to_bytes_be();
    let mut bytes = vec![0u8; len.saturating_sub(digits.len())];
    bytes.extend(digits.iter().skip(digits.len().saturating_sub(len)));
    bytes
}

/// C statements XORing the bytes at `bytes` (a `u8 *` expression) with
/// `image`, one per byte that is not zero.
fn xor_image(image: &[u8], bytes: &str) -> String {
    let mut out = format!("u8 *initial_xor = {bytes};\n    ");
    for (i, b) in image.iter().enumerate().filter(|(_, b)| **b != 0) {
        out.push_str(&format!("initial_xor[{i}] ^= {b:#04x};\n    "));
    }
    out
}
