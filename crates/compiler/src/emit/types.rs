//! C types: a struct per P4 header, struct and union (fields in host byte
//! order, wider-than-64-bit fields as network-order byte arrays, plus a
//! validity flag and the header's packet offset), and the per-packet state
//! struct holding every P4 variable of the pipeline.

use super::varbit::varbit_type;
use super::Emitter;
use crate::cstruct::{c_ident, Scalar};
use crate::ir::{AggId, AggKind, Ty, VarStorage};

/// C members added to every header struct.
pub const VALID: &str = "p4bpf_valid";
pub const OFFSET: &str = "p4bpf_offset";
/// Set when a control assigns one of the header's fields: the in-place
/// deparser writes the header back only then.
pub const DIRTY: &str = "p4bpf_dirty";
/// The biggest state struct clang copies inline: its BPF back end expands
/// a `memcpy` into at most 128 stores of 8 bytes and refuses bigger ones.
const INLINE_COPY_BYTES: u32 = 1024;

/// One struct definition to print.
enum Item {
    Agg(AggId),
    Stack(AggId, u32),
}

/// Approximate C sizes, to decide between stack and per-CPU state.
pub fn c_size(e: &Emitter, ty: &Ty) -> u32 {
    match ty {
        Ty::Bool | Ty::Error => 1,
        Ty::Bits { width, .. } => Scalar::for_width(*width).size(),
        Ty::Header(a) | Ty::Struct(a) | Ty::Union(a) => {
            let fields: u32 = e
                .prog
                .agg(*a)
                .map(|g| {
                    let varbit = g.varbit.as_ref().map_or(0, |v| v.max_bits / 8 + 2);
                    let fields: u32 = g
                        .fields
                        .iter()
                        .map(|f| c_size(e, &f.ty).next_multiple_of(2))
                        .sum();
                    fields + varbit
                })
                .unwrap_or(0);
            fields + 8
        }
        Ty::Stack { elem, size } => c_size(e, &Ty::Header(*elem)) * size + 4,
        Ty::Varbit { max_bits } => max_bits.div_ceil(8) + 2,
        Ty::Void => 0,
    }
}

impl Emitter<'_> {
    /// `u32 name`, `struct h name`, `struct h name[4]`.
    pub fn declare(&self, ty: &Ty, name: &str) -> String {
        match ty {
            Ty::Bool | Ty::Error => format!("u8 {name}"),
            Ty::Bits {
                width,
                signed: false,
            } => Scalar::for_width(*width).declare(name),
            Ty::Bits {
                width,
                signed: true,
            } => match Scalar::for_width(*width) {
                Scalar::Bytes(n) => format!("u8 {name}[{n}]"),
                s => format!("s{} {name}", s.size() * 8),
            },
            Ty::Header(a) | Ty::Struct(a) | Ty::Union(a) => {
                format!("struct {} {name}", self.agg_name(*a))
            }
            Ty::Stack { elem, size } => format!("struct {} {name}", self.stack_name(*elem, *size)),
            Ty::Varbit { max_bits } => format!("struct {} {name}", varbit_type(*max_bits)),
            Ty::Void => format!("u8 {name}"),
        }
    }

    /// The C struct of a stack: its elements and the `next` index.
    pub fn stack_name(&self, elem: AggId, size: u32) -> String {
        format!("{}_stack{size}", self.agg_name(elem))
    }

    pub fn agg_name(&self, id: AggId) -> String {
        self.prog
            .agg(id)
            .map(|a| c_ident(&a.name))
            .unwrap_or_default()
    }

    /// Struct definitions of every aggregate, each after the ones it uses.
    pub fn type_definitions(&self) -> String {
        let mut order = vec![];
        let mut seen = vec![false; self.prog.aggregates.len()];
        for i in 0..self.prog.aggregates.len() {
            self.visit(AggId(i as u32), &mut seen, &mut order);
        }
        // Stacks no aggregate holds: local variables (`H[2] tmp;`).
        for v in &self.prog.vars {
            if let Ty::Stack { elem, size } = v.ty {
                order.push(Item::Stack(elem, size));
            }
        }
        let mut out = self.varbit_definitions();
        let mut stacks_done = vec![];
        for item in order {
            let id = match item {
                Item::Agg(id) => id,
                Item::Stack(elem, size) => {
                    if !stacks_done.contains(&(elem, size)) {
                        stacks_done.push((elem, size));
                        out.push_str(&format!(
                            "/* header stack {}[{size}] */\nstruct {} {{\n    struct {} elem[{size}];\n    u32 next; /* elements extracted or pushed */\n}};\n\n",
                            self.agg_name(elem),
                            self.stack_name(elem, size),
                            self.agg_name(elem)
                        ));
                    }
                    continue;
                }
            };
            let Some(agg) = self.prog.agg(id) else {
                continue;
            };
            let what = match agg.kind {
                AggKind::Header => format!(
                    "header {} ({} bytes on the wire)",
                    agg.name,
                    agg.wire_bits / 8
                ),
                AggKind::Struct => format!("struct {}", agg.name),
                AggKind::Union => format!("header_union {}", agg.name),
            };
            out.push_str(&format!("/* {what} */\nstruct {} {{\n", c_ident(&agg.name)));
            for f in &agg.fields {
                let comment = match f.ty {
                    Ty::Bits { width, signed } => {
                        format!(" /* {}<{width}> */", if signed { "int" } else { "bit" })
                    }
                    _ => String::new(),
                };
                out.push_str(&format!(
                    "    {};{comment}\n",
                    self.declare(&f.ty, &c_ident(&f.name))
                ));
            }
            if let Some(v) = &agg.varbit {
                out.push_str(&format!(
                    "    struct {} {};\n",
                    varbit_type(v.max_bits),
                    c_ident(&v.name)
                ));
            }
            if agg.kind == AggKind::Header {
                out.push_str(&format!(
                    "    u8 {VALID};\n    u8 {DIRTY}; /* a field was assigned */\n    u16 {OFFSET}; /* where it was extracted */\n"
                ));
            }
            if agg.fields.is_empty() && agg.kind != AggKind::Header {
                out.push_str("    u8 p4bpf_unused;\n");
            }
            out.push_str("};\n\n");
        }
        out
    }

    fn visit(&self, id: AggId, seen: &mut Vec<bool>, order: &mut Vec<Item>) {
        match seen.get(id.index()) {
            Some(false) => {}
            _ => return,
        }
        if let Some(s) = seen.get_mut(id.index()) {
            *s = true;
        }
        if let Some(agg) = self.prog.agg(id) {
            for f in &agg.fields {
                match f.ty {
                    Ty::Header(a) | Ty::Struct(a) | Ty::Union(a) => self.visit(a, seen, order),
                    Ty::Stack { elem, size } => {
                        self.visit(elem, seen, order);
                        order.push(Item::Stack(elem, size));
                    }
                    _ => {}
                }
            }
        }
        order.push(Item::Agg(id));
    }

    /// The per-packet state struct.
    pub fn state_definition(&self) -> String {
        let mut out = format!(
            "/* Per-packet state: every variable of the P4 pipeline. */\nstruct {} {{\n",
            self.state_type()
        );
        for v in &self.prog.vars {
            if v.storage == VarStorage::State {
                out.push_str(&format!(
                    "    {}; /* {} */\n",
                    self.declare(&v.ty, &v.c_name),
                    v.p4_name
                ));
            }
        }
        if self.stages.staged() {
            out.push_str(
                "    u32 p4bpf_offset; /* bytes parsed, for the stages after the first */\n",
            );
            out.push_str("    u8 p4bpf_parser_error;\n");
        }
        if self.keeps_parser_errors() {
            out.push_str(&format!(
                "    u16 {}; /* bytes parsed at a parser error */\n",
                super::parser_error::REJECTED_AT
            ));
        }
        if self.mtu_checked {
            out.push_str(&format!(
                "    u32 {}; /* the frame's length as it came in (the MTU check) */\n",
                super::ARRIVED_LEN
            ));
        }
        out.push_str("    u8 p4bpf_exit; /* set by `exit` inside an action */\n};\n\n");
        if self.state_size() > INLINE_COPY_BYTES {
            out.push_str(&self.state_copy_definition());
        }
        out
    }

    /// Copies the state struct at `src` to `dst` (a packet copy's).
    pub fn copy_state_line(&self, dst: &str, src: &str) -> super::c::CStmt {
        if self.state_size() > INLINE_COPY_BYTES {
            super::c::line(format!("p4bpf_copy_state({dst}, {src})"))
        } else {
            super::c::line(format!("__builtin_memcpy({dst}, {src}, sizeof(*st))"))
        }
    }

    /// A word-by-word copy of a state struct too big for clang to inline
    /// as a `memcpy` (BPF has no `memcpy` to call). The empty `asm` keeps
    /// clang from turning the loop back into one.
    fn state_copy_definition(&self) -> String {
        let ty = self.state_type();
        format!(
            "static __always_inline void p4bpf_copy_state(struct {ty} *dst, const struct {ty} *src)\n\
             {{\n\
             \x20   u64 *to = (u64 *)dst;\n\
             \x20   const u64 *from = (const u64 *)src;\n\
             \x20   for (u32 i = 0; i < sizeof(*src) / 8; i++) {{\n\
             \x20       u64 word = from[i];\n\
             \x20       asm volatile(\"\" : \"+r\"(word));\n\
             \x20       to[i] = word;\n\
             \x20   }}\n\
             \x20   for (u32 i = sizeof(*src) / 8 * 8; i < sizeof(*src); i++) {{\n\
             \x20       ((u8 *)dst)[i] = ((const u8 *)src)[i];\n\
             \x20   }}\n\
             }}\n\n"
        )
    }

    /// Statements giving a reused state struct a fresh packet's values:
    /// every header invalid, every stack empty, every scalar zero. Field by
    /// field, because a big `memset` is not available to BPF programs.
    /// Metadata fields no one reads are left as the last packet left them.
    pub fn reset_state(&self) -> Vec<super::c::CStmt> {
        let mut out = vec![super::c::line("st->p4bpf_exit = 0")];
        for (i, v) in self.prog.vars.iter().enumerate() {
            if v.storage == VarStorage::State {
                let var = crate::ir::VarId(i as u32);
                let place = format!("st->{}", v.c_name);
                self.reset_read(&v.ty, &place, (var, &mut vec![]), &mut out);
            }
        }
        out
    }

    /// [`Self::reset`] of the place `at` names (a state variable and the
    /// struct fields down from it), but for the fields no one reads.
    fn reset_read(
        &self,
        ty: &Ty,
        place: &str,
        at: (crate::ir::VarId, &mut Vec<usize>),
        out: &mut Vec<super::c::CStmt>,
    ) {
        let (var, fields) = at;
        match ty {
            Ty::Struct(a) => {
                let members = self.prog.agg(*a).map_or(&[][..], |g| &g.fields);
                for (i, f) in members.iter().enumerate() {
                    fields.push(i);
                    let member = format!("{place}.{}", c_ident(&f.name));
                    self.reset_read(&f.ty, &member, (var, &mut *fields), out);
                    fields.pop();
                }
            }
            _ if self.skipped_resets.contains(var, fields) => {}
            _ => self.reset(ty, place, out),
        }
    }

    pub(super) fn reset(&self, ty: &Ty, place: &str, out: &mut Vec<super::c::CStmt>) {
        match ty {
            Ty::Bool | Ty::Error | Ty::Bits { .. } => {
                match Scalar::for_width(ty.width().unwrap_or(8)) {
                    Scalar::Bytes(n) => {
                        out.push(super::c::line(format!("__builtin_memset({place}, 0, {n})")))
                    }
                    _ => out.push(super::c::line(format!("{place} = 0"))),
                }
            }
            Ty::Header(a) => {
                out.push(super::c::line(format!("{place}.{VALID} = 0")));
                out.push(super::c::line(format!("{place}.{DIRTY} = 0")));
                if self.marks_parsed(*a) {
                    out.push(super::c::line(format!("{place}.{OFFSET} = 0")));
                }
            }
            Ty::Struct(a) | Ty::Union(a) => {
                for f in self
                    .prog
                    .agg(*a)
                    .map(|g| g.fields.as_slice())
                    .unwrap_or(&[])
                {
                    self.reset(&f.ty, &format!("{place}.{}", c_ident(&f.name)), out);
                }
            }
            Ty::Stack { elem, size } => {
                out.push(super::c::line(format!("{place}.next = 0")));
                let elem_ty = match self.prog.agg(*elem).map(|g| g.kind) {
                    Some(AggKind::Union) => Ty::Union(*elem),
                    _ => Ty::Header(*elem),
                };
                for i in 0..*size {
                    self.reset(&elem_ty, &format!("{place}.elem[{i}]"), out);
                }
            }
            // Bytes too: past those in use they must be zero.
            Ty::Varbit { .. } => out.push(super::c::line(format!(
                "__builtin_memset(&{place}, 0, sizeof({place}))"
            ))),
            Ty::Void => {}
        }
    }

    pub fn state_type(&self) -> String {
        format!("{}_state", self.c_prefix())
    }

    /// The state's size in bytes, fields only (C may pad it further).
    pub fn state_size(&self) -> u32 {
        self.prog
            .vars
            .iter()
            .filter(|v| v.storage == VarStorage::State)
            .map(|v| c_size(self, &v.ty))
            .sum()
    }
}
