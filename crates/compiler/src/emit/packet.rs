//! Packet access: reading a header's fields out of the packet after one
//! bounds check for the whole header, and writing fields back.
//!
//! Byte-aligned fields of 8, 16, 32 or 64 bits are one load or store with a
//! byte swap; other fields read or rewrite the bytes that cover them;
//! fields wider than 64 bits are copied as bytes (they stay in network
//! order in the header struct), shifted where they are not whole bytes.

use super::c::{line, CStmt};
use super::expr::{is_narrow_signed, mask_literal, wrap};
use super::helpers::Helper;
use super::Emitter;
use crate::cstruct::{c_ident, Scalar};
use crate::ir::{AggField, AggId, Aggregate};

fn swap(width: u32) -> &'static str {
    match width {
        16 => "bpf_ntohs",
        32 => "bpf_ntohl",
        64 => "bpf_be64_to_cpu",
        _ => "",
    }
}

fn swap_out(width: u32) -> &'static str {
    match width {
        16 => "bpf_htons",
        32 => "bpf_htonl",
        64 => "bpf_cpu_to_be64",
        _ => "",
    }
}

impl Emitter<'_> {
    /// The value of field `f` of a header starting at pointer `base`.
    pub fn load_field(&self, base: &str, f: &AggField) -> String {
        let bits = self.load_bits(base, f);
        if is_narrow_signed(&f.ty) {
            wrap(&f.ty, &bits)
        } else {
            bits
        }
    }

    /// Field `f` at `base` as an unsigned value of its width.
    fn load_bits(&self, base: &str, f: &AggField) -> String {
        let width = f.ty.width().unwrap_or(8);
        let byte = f.bit_offset / 8;
        let bit = f.bit_offset % 8;
        let c = Scalar::for_width(width).c_type();
        if bit == 0 && matches!(width, 8 | 16 | 32 | 64) {
            return if width == 8 {
                format!("{base}[{byte}]")
            } else {
                format!("{}(*(u{width} *)({base} + {byte}))", swap(width))
            };
        }
        let bytes = (bit + width).div_ceil(8);
        if bytes > 1 {
            self.use_helper(Helper::LoadBePacket);
        }
        if bit == 0 && width.is_multiple_of(8) {
            return format!("(({c})p4bpf_load_be_pkt({base} + {byte}, {bytes}))");
        }
        let shift = bytes * 8 - bit - width;
        let loaded = if bytes == 1 {
            format!("{base}[{byte}]")
        } else {
            format!("p4bpf_load_be_pkt({base} + {byte}, {bytes})")
        };
        let shifted = if shift == 0 {
            loaded
        } else {
            format!("({loaded} >> {shift})")
        };
        format!("(({c})({shifted} & {}))", mask_literal(width))
    }

    /// Statements storing `value` into field `f` of the header at `base`.
    pub fn store_field(&self, base: &str, f: &AggField, value: &str) -> Vec<CStmt> {
        let width = f.ty.width().unwrap_or(8);
        let byte = f.bit_offset / 8;
        let bit = f.bit_offset % 8;
        // Wider than 64 bits: a byte array in network order already.
        if let Scalar::Bytes(_) = Scalar::for_width(width) {
            return super::wide::store_wide_field(base, f, value);
        }
        if bit == 0 && matches!(width, 8 | 16 | 32 | 64) {
            return vec![if width == 8 {
                line(format!("{base}[{byte}] = {value}"))
            } else {
                line(format!(
                    "*(u{width} *)({base} + {byte}) = {}({value})",
                    swap_out(width)
                ))
            }];
        }
        if bit == 0 && width.is_multiple_of(8) {
            self.use_helper(Helper::StoreBePacket);
            let bytes = width / 8;
            return vec![line(format!(
                "p4bpf_store_be_pkt({base} + {byte}, {bytes}, {value})"
            ))];
        }
        let bytes = (bit + width).div_ceil(8);
        self.use_helper(Helper::LoadBePacket);
        self.use_helper(Helper::StoreBePacket);
        let shift = bytes * 8 - bit - width;
        let mask = format!("((u64){} << {shift})", mask_literal(width));
        vec![line(format!(
            "p4bpf_store_be_pkt({base} + {byte}, {bytes}, (p4bpf_load_be_pkt({base} + {byte}, {bytes}) & ~{mask}) | (((u64)({value}) << {shift}) & {mask}))"
        ))]
    }

    /// Reads the fields of header `agg` from `base` into the struct at
    /// `place`: every field (a struct field's members with it), or with
    /// the state in the per-CPU scratch (where clang cannot drop unused
    /// stores) the fields something reads.
    pub fn read_header(&self, id: AggId, agg: &Aggregate, base: &str, place: &str) -> Vec<CStmt> {
        let in_map = self.state_in_map();
        let wire = self.wire_fields(agg);
        wire.agg
            .fields
            .iter()
            .zip(&wire.owner)
            .filter(|(_, i)| !in_map || self.reads.contains(id, **i))
            .flat_map(
                |(f, _)| match Scalar::for_width(f.ty.width().unwrap_or(8)) {
                    Scalar::Bytes(_) => super::wide::load_wide_field(
                        base,
                        f,
                        &format!("{place}.{}", c_ident(&f.name)),
                    ),
                    _ => vec![line(format!(
                        "{place}.{} = {}",
                        c_ident(&f.name),
                        self.load_field(base, f)
                    ))],
                },
            )
            .collect()
    }

    /// Writes the fields of `agg` for which `keep` holds from `place` to
    /// `base` (a struct field's members with it). Kept fields that share bytes (`bit<3> pcp; bit<1> dei;
    /// bit<12> vid`) are packed into one store instead of one
    /// read-modify-write each.
    pub fn write_header(
        &self,
        agg: &Aggregate,
        base: &str,
        place: &str,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<CStmt> {
        let wire = self.wire_fields(agg);
        let (agg, keep) = (wire.agg.as_ref(), |i: usize| {
            wire.owner.get(i).is_some_and(|f| keep(*f))
        });
        let mut out = vec![];
        let mut i = 0;
        while let Some(f) = agg.fields.get(i) {
            if !keep(i) {
                i += 1;
                continue;
            }
            if let Some(run) = byte_run(agg, i, &keep) {
                out.extend(self.store_run(agg, i..i + run, base, place));
                i += run;
                continue;
            }
            match Scalar::for_width(f.ty.width().unwrap_or(8)) {
                Scalar::Bytes(_) => out.extend(super::wide::store_wide_field(
                    base,
                    f,
                    &format!("{place}.{}", c_ident(&f.name)),
                )),
                _ => {
                    out.extend(self.store_field(base, f, &format!("{place}.{}", c_ident(&f.name))))
                }
            }
            i += 1;
        }
        out
    }

    /// One store of the fields `range` of `agg`, packed big-endian.
    fn store_run(
        &self,
        agg: &Aggregate,
        range: std::ops::Range<usize>,
        base: &str,
        place: &str,
    ) -> Vec<CStmt> {
        let fields = agg.fields.get(range).unwrap_or(&[]);
        let Some(first) = fields.first() else {
            return vec![];
        };
        let total: u32 = fields.iter().filter_map(|f| f.ty.width()).sum();
        let parts: Vec<String> = fields
            .iter()
            .map(|f| {
                let width = f.ty.width().unwrap_or(8);
                let shift = first.bit_offset + total - f.bit_offset - width;
                format!(
                    "(((u64){place}.{} & {}) << {shift})",
                    c_ident(&f.name),
                    mask_literal(width)
                )
            })
            .collect();
        let packed = AggField {
            name: String::new(),
            ty: crate::ir::Ty::bits(total),
            bit_offset: first.bit_offset,
        };
        self.store_field(base, &packed, &format!("({})", parts.join(" | ")))
    }
}

/// How many fields from `start`, all kept and none byte-aligned whole
/// bytes on its own, fill whole bytes together (at most 64 bits): at least
/// two, or `None`.
fn byte_run(agg: &Aggregate, start: usize, keep: &impl Fn(usize) -> bool) -> Option<usize> {
    let first = agg.fields.get(start)?;
    if first.bit_offset % 8 != 0 {
        return None;
    }
    let mut bits = 0;
    for (n, f) in agg.fields.iter().enumerate().skip(start) {
        let width = f.ty.width().filter(|w| *w <= 64)?;
        if !keep(n) || f.bit_offset != first.bit_offset + bits {
            return None;
        }
        bits += width;
        if bits > 64 {
            return None;
        }
        if bits % 8 == 0 {
            return (n > start).then_some(n - start + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{AggKind, Ty};

    /// `bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> ty; bit<4> a; bit<8> b; bit<4> c`.
    fn vlan_like() -> Aggregate {
        let mut offset = 0;
        let fields = [3, 1, 12, 16, 4, 8, 4]
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let f = AggField {
                    name: format!("f{i}"),
                    ty: Ty::bits(*w),
                    bit_offset: offset,
                };
                offset += w;
                f
            })
            .collect();
        Aggregate {
            name: "h".into(),
            kind: AggKind::Header,
            fields,
            wire_bits: offset,
            varbit: None,
        }
    }

    #[test]
    fn fields_sharing_bytes_are_packed_into_runs() {
        let h = vlan_like();
        let all = |_: usize| true;
        assert_eq!(byte_run(&h, 0, &all), Some(3), "pcp, dei, vid: 2 bytes");
        assert_eq!(byte_run(&h, 3, &all), None, "a whole u16 alone");
        assert_eq!(byte_run(&h, 4, &all), Some(3), "4 + 8 + 4 bits");
        assert_eq!(byte_run(&h, 1, &all), None, "not at a byte boundary");
        // A field left out breaks the run: the others keep their own stores.
        assert_eq!(byte_run(&h, 0, &|i| i != 1), None);
    }
}
