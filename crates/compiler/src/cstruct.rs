//! Byte layouts of the C structs the emitter writes for map keys and values.
//!
//! The emitter prints these structs and the runtime fills them from the
//! layout description, so both must agree with clang to the byte: fields
//! get natural alignment (as clang does for BPF and x86_64) unless the
//! struct is packed, and the emitter adds `_Static_assert`s on the sizes.

use p4bpf_layout::{ByteOrder, FieldLayout};

/// C keywords a P4 identifier may spell (P4's own keywords cannot occur).
const C_KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "asm",
];

/// `name` as a C identifier: a keyword gets a trailing `_`.
pub fn c_ident(name: &str) -> String {
    if C_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// How a P4 value of `width` bits is held in C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    U8,
    U16,
    U32,
    U64,
    /// A byte array in network order (values wider than 64 bits, or packed
    /// network-order fields of odd sizes).
    Bytes(u32),
}

impl Scalar {
    /// The natural holder of a `width`-bit value.
    pub fn for_width(width: u32) -> Scalar {
        match width {
            0..=8 => Scalar::U8,
            9..=16 => Scalar::U16,
            17..=32 => Scalar::U32,
            33..=64 => Scalar::U64,
            w => Scalar::Bytes(w.div_ceil(8)),
        }
    }
    pub fn size(self) -> u32 {
        match self {
            Scalar::U8 => 1,
            Scalar::U16 => 2,
            Scalar::U32 => 4,
            Scalar::U64 => 8,
            Scalar::Bytes(n) => n,
        }
    }
    pub fn align(self) -> u32 {
        match self {
            Scalar::Bytes(_) => 1,
            s => s.size(),
        }
    }
    /// The C type name (for arrays, the element type; see [`Scalar::declare`]).
    pub fn c_type(self) -> &'static str {
        match self {
            Scalar::U8 | Scalar::Bytes(_) => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
        }
    }
    /// `u32 name` or `u8 name[16]`.
    pub fn declare(self, name: &str) -> String {
        match self {
            Scalar::Bytes(n) => format!("u8 {name}[{n}]"),
            s => format!("{} {name}", s.c_type()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct CField {
    /// C member name.
    pub c_name: String,
    /// P4 name for the layout description.
    pub p4_name: String,
    pub bit_width: u32,
    pub scalar: Scalar,
    pub order: ByteOrder,
    pub offset: u32,
    /// An `int<W>`: the control plane takes negative values for it.
    pub signed: bool,
}

/// A flat C struct of scalars.
#[derive(Clone, Debug, Default)]
pub struct CStruct {
    pub fields: Vec<CField>,
    pub packed: bool,
    size: u32,
    align: u32,
}

fn align_up(value: u32, align: u32) -> u32 {
    value.div_ceil(align.max(1)) * align.max(1)
}

impl CStruct {
    pub fn new(packed: bool) -> CStruct {
        CStruct {
            fields: vec![],
            packed,
            size: 0,
            align: 1,
        }
    }

    /// Appends a field; returns its byte offset.
    pub fn push(
        &mut self,
        c_name: &str,
        p4_name: &str,
        bit_width: u32,
        scalar: Scalar,
        order: ByteOrder,
    ) -> u32 {
        let align = if self.packed { 1 } else { scalar.align() };
        let offset = align_up(self.size, align);
        self.size = offset + scalar.size();
        self.align = self.align.max(align);
        self.fields.push(CField {
            c_name: c_name.into(),
            p4_name: p4_name.into(),
            bit_width,
            scalar,
            order,
            offset,
            signed: false,
        });
        offset
    }

    /// Appends `inner`'s fields as one member, aligned and sized as a
    /// whole as C lays out a nested struct; returns its byte offset.
    pub fn push_struct(&mut self, inner: &CStruct) -> u32 {
        let align = if self.packed { 1 } else { inner.align() };
        let offset = align_up(self.size, align);
        self.fields.extend(inner.fields.iter().map(|f| CField {
            offset: offset + f.offset,
            ..f.clone()
        }));
        self.size = offset + inner.size();
        self.align = self.align.max(align);
        offset
    }

    /// Marks the field pushed last as an `int<W>` when `signed`.
    pub fn sign_last(&mut self, signed: bool) {
        if let Some(last) = self.fields.last_mut() {
            last.signed = signed;
        }
    }

    /// `sizeof` of the struct, padding included.
    pub fn size(&self) -> u32 {
        align_up(self.size, self.align).max(1)
    }
    pub fn align(&self) -> u32 {
        self.align
    }

    /// The member declarations, one per line, indented by `indent`.
    pub fn members(&self, indent: &str) -> String {
        let mut out = String::new();
        for f in &self.fields {
            out.push_str(&format!(
                "{indent}{}; /* {} : bit<{}> */\n",
                f.scalar.declare(&f.c_name),
                f.p4_name,
                f.bit_width
            ));
        }
        if self.fields.is_empty() {
            out.push_str(&format!("{indent}u8 p4bpf_unused;\n"));
        }
        out
    }

    /// The fields as the layout description sees them, shifted by `base`.
    pub fn describe(&self, base: u32) -> Vec<FieldLayout> {
        self.fields
            .iter()
            .map(|f| FieldLayout {
                name: f.p4_name.clone(),
                bit_width: f.bit_width,
                byte_offset: base + f.offset,
                byte_len: f.scalar.size(),
                byte_order: f.order,
                signed: f.signed,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_struct_is_aligned_and_sized_as_a_whole() {
        let mut inner = CStruct::new(false);
        inner.push("a", "s.a", 8, Scalar::U8, ByteOrder::Host);
        inner.push("b", "s.b", 32, Scalar::U32, ByteOrder::Host);
        inner.push("c", "s.c", 1, Scalar::U8, ByteOrder::Host);
        let mut outer = CStruct::new(false);
        outer.push("x", "x", 3, Scalar::U8, ByteOrder::Host);
        // struct { u8 x; struct { u8 a; u32 b; u8 c; } s; u8 y; }: s at 4
        // (its alignment), 12 bytes long; y at 16; 20 in all.
        assert_eq!(outer.push_struct(&inner), 4);
        assert_eq!(outer.push("y", "y", 8, Scalar::U8, ByteOrder::Host), 16);
        let offsets: Vec<u32> = outer.fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [0, 4, 8, 12, 16]);
        assert_eq!(outer.size(), 20);
    }

    #[test]
    fn natural_alignment_pads_like_clang() {
        let mut s = CStruct::new(false);
        assert_eq!(s.push("a", "a", 8, Scalar::U8, ByteOrder::Host), 0);
        assert_eq!(s.push("b", "b", 32, Scalar::U32, ByteOrder::Host), 4);
        assert_eq!(s.push("c", "c", 48, Scalar::U64, ByteOrder::Host), 8);
        assert_eq!(s.push("d", "d", 8, Scalar::U8, ByteOrder::Host), 16);
        assert_eq!(s.size(), 24);
    }

    #[test]
    fn packed_structs_have_no_padding() {
        let mut s = CStruct::new(true);
        s.push("p", "p", 32, Scalar::U32, ByteOrder::Host);
        assert_eq!(s.push("a", "a", 8, Scalar::U8, ByteOrder::Network), 4);
        assert_eq!(
            s.push("b", "b", 48, Scalar::Bytes(6), ByteOrder::Network),
            5
        );
        assert_eq!(s.size(), 11);
    }

    #[test]
    fn c_keywords_get_a_suffix() {
        assert_eq!(c_ident("long"), "long_");
        assert_eq!(c_ident("ttl"), "ttl");
    }

    #[test]
    fn widths_pick_the_smallest_holder() {
        assert_eq!(Scalar::for_width(1), Scalar::U8);
        assert_eq!(Scalar::for_width(13), Scalar::U16);
        assert_eq!(Scalar::for_width(48), Scalar::U64);
        assert_eq!(Scalar::for_width(128), Scalar::Bytes(16));
    }
}
