//! Digests to the control plane: the program's one ring buffer
//! `<prog>_digests`, the loss counter `<prog>_digests_lost`, and per
//! digest a record struct and a send function. A record is the digest's
//! index, padding, then the data struct at [`DATA_OFFSET`]
//! (`p4bpf_layout::digest`). Sent with `bpf_ringbuf_output` (a copy), so
//! the user-space target keeps digests apart from trace records, which
//! are reserved in place.

use super::Emitter;
use crate::cstruct::{CStruct, Scalar};
use crate::ir::{AggId, Digest, Program, Ty};
use p4bpf_layout::digest::{Digests, DATA_OFFSET};
use p4bpf_layout::ByteOrder;

/// Bytes of the digest ring: a power of two pages. A record takes 8
/// bytes of header plus its size rounded up to 8, so 256 KiB holds
/// 10922 records of a 16-byte digest until the control plane reads.
pub const RING_BYTES: u32 = 256 * 1024;

/// The ring buffer map's name.
pub fn ring_name(prog: &Program) -> String {
    format!("{}_digests", super::c_identifier(&prog.name))
}

fn lost_name(prog: &Program) -> String {
    format!("{}_digests_lost", super::c_identifier(&prog.name))
}

/// The one field of a digest whose data is not a struct (`Digest<bit<32>>`).
pub const SCALAR_FIELD: &str = "value";

/// The C layout of a digest's data: the struct the emitter prints for
/// its P4 type (fields in host order, wider than 64 bits as
/// network-order bytes, naturally aligned); a bit string, boolean or
/// error alone is one field, [`SCALAR_FIELD`].
pub fn data_layout(prog: &Program, digest: &Digest) -> CStruct {
    let Ty::Struct(agg) = digest.ty else {
        let mut layout = CStruct::new(false);
        push_field(&mut layout, SCALAR_FIELD, &digest.ty);
        return layout;
    };
    struct_layout(prog, agg, "")
}

/// The C layout of struct `agg`, its fields named after `prefix`: a
/// nested struct is one member, aligned and sized as C does, its fields
/// named `outer.inner`.
fn struct_layout(prog: &Program, agg: AggId, prefix: &str) -> CStruct {
    let mut layout = CStruct::new(false);
    for f in prog
        .agg(agg)
        .map(|a| a.fields.as_slice())
        .unwrap_or_default()
    {
        let name = format!("{prefix}{}", f.name);
        match f.ty {
            Ty::Struct(inner) => {
                layout.push_struct(&struct_layout(prog, inner, &format!("{name}.")));
            }
            _ => push_field(&mut layout, &name, &f.ty),
        }
    }
    layout
}

fn push_field(layout: &mut CStruct, name: &str, ty: &Ty) {
    let width = ty.width().unwrap_or(8);
    let scalar = Scalar::for_width(width);
    let order = match scalar {
        Scalar::Bytes(_) => ByteOrder::Network,
        _ => ByteOrder::Host,
    };
    layout.push(name, name, width, scalar, order);
}

/// The description's digests, or `None` when the program sends none.
pub fn describe(prog: &Program) -> Option<Digests> {
    if prog.digests.is_empty() {
        return None;
    }
    let digests = prog
        .digests
        .iter()
        .map(|d| {
            let layout = data_layout(prog, d);
            p4bpf_layout::digest::Digest {
                name: d.name.clone(),
                type_name: type_name(prog, d),
                fields: layout.describe(0),
                size: layout.size(),
            }
        })
        .collect();
    Some(Digests {
        ring: ring_name(prog),
        ring_bytes: RING_BYTES,
        lost: lost_name(prog),
        digests,
    })
}

/// The P4 name of a digest's data type.
pub fn type_name(prog: &Program, digest: &Digest) -> String {
    match digest.ty {
        Ty::Struct(agg) => prog.agg(agg).map(|a| a.name.clone()).unwrap_or_default(),
        Ty::Bits {
            width,
            signed: true,
        } => format!("int<{width}>"),
        Ty::Bits { width, .. } => format!("bit<{width}>"),
        Ty::Bool => "bool".into(),
        Ty::Error => "error".into(),
        _ => String::new(),
    }
}

impl Emitter<'_> {
    /// `p4bpf_send_DIGEST(&data)`: sends `data`, a place of the digest's type.
    pub fn digest_call(&self, index: u32, data: &str) -> String {
        let name = self
            .prog
            .digests
            .get(index as usize)
            .map(|d| d.c_name.as_str())
            .unwrap_or_default();
        format!("p4bpf_send_{name}(&{data})")
    }

    /// The ring, the loss counter and one record and send function per
    /// digest; nothing when the program sends no digest.
    pub fn digest_definitions(&self) -> String {
        if self.prog.digests.is_empty() {
            return String::new();
        }
        let ring = ring_name(self.prog);
        let lost = lost_name(self.prog);
        let mut out = format!(
            "/* Digests to the control plane: one ring for the program; records\n * are a u32 digest index, padding, then the data at byte {DATA_OFFSET}. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_RINGBUF);\n    __uint(max_entries, {RING_BYTES});\n}} {ring} SEC(\".maps\");\n\n\
             /* Records the ring had no room for (the control plane reads too slowly). */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u64);\n    __uint(max_entries, 1);\n}} {lost} SEC(\".maps\");\n\n\
             static __always_inline void p4bpf_digest_lost(void)\n{{\n    u32 zero = 0;\n    u64 *count = bpf_map_lookup_elem(&{lost}, &zero);\n    if (count)\n        *count += 1;\n}}\n\n"
        );
        for (i, d) in self.prog.digests.iter().enumerate() {
            out.push_str(&self.digest_sender(i, d));
        }
        out
    }

    fn digest_sender(&self, index: usize, d: &Digest) -> String {
        let ring = ring_name(self.prog);
        let record = format!("{}_{}_record", self.c_prefix(), d.c_name);
        let data = self.declare(&d.ty, "data");
        let size = data_layout(self.prog, d).size();
        let c_type = self.declare(&d.ty, "");
        let c_type = c_type.trim_end();
        // A bit string wider than 64 bits is a byte array, which C neither
        // points to by that type's name nor assigns.
        let wide = matches!(
            Scalar::for_width(d.ty.width().unwrap_or(0)),
            Scalar::Bytes(_)
        ) && !matches!(d.ty, Ty::Struct(_));
        let (param, fill) = if wide {
            (
                format!("const {}", self.declare(&d.ty, "(*data)")),
                format!(" .digest = {index} }};\n    __builtin_memcpy(record.data, *data, sizeof(record.data));"),
            )
        } else {
            (
                format!("const {c_type} *data"),
                format!(" .digest = {index}, .data = *data }};"),
            )
        };
        format!(
            "/* Digest {name} ({ty}). */\n\
             _Static_assert(sizeof({c_type}) == {size}, \"digest {name}: the description's layout\");\n\
             struct {record} {{\n    u32 digest; /* index in the description's digests */\n    u32 pad;\n    {data};\n}};\n\n\
             static __always_inline void p4bpf_send_{c_name}({param})\n{{\n    \
             struct {record} record = {{{fill}\n    \
             if (bpf_ringbuf_output(&{ring}, &record, sizeof(record), 0) != 0)\n        p4bpf_digest_lost();\n}}\n\n",
            name = d.name,
            ty = type_name(self.prog, d),
            c_name = d.c_name,
        )
    }
}
