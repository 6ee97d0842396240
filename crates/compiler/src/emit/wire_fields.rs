//! A header's fields as they lie on the wire. A header may hold a struct
//! of bit strings (P4 7.2.7): its C struct nests the struct, and reading
//! or writing the header walks the struct's members in order, each at its
//! own bit offset and named by its C member path (`row.alt0.valid`).

use super::Emitter;
use crate::cstruct::c_ident;
use crate::ir::{AggField, Aggregate, Ty};
use std::borrow::Cow;

/// A header with its struct fields replaced by their members, and for each
/// of those wire fields the index of the header field it belongs to.
pub struct WireFields<'a> {
    pub agg: Cow<'a, Aggregate>,
    pub owner: Vec<usize>,
}

impl Emitter<'_> {
    pub fn wire_fields<'a>(&self, agg: &'a Aggregate) -> WireFields<'a> {
        if !agg.fields.iter().any(|f| matches!(f.ty, Ty::Struct(_))) {
            return WireFields {
                agg: Cow::Borrowed(agg),
                owner: (0..agg.fields.len()).collect(),
            };
        }
        let mut fields = vec![];
        let mut owner = vec![];
        for (i, f) in agg.fields.iter().enumerate() {
            let before = fields.len();
            self.members(&f.ty, &c_ident(&f.name), f.bit_offset, &mut fields);
            owner.resize(owner.len() + fields.len() - before, i);
        }
        let flat = Aggregate {
            name: agg.name.clone(),
            kind: agg.kind,
            fields,
            wire_bits: agg.wire_bits,
            varbit: agg.varbit.clone(),
        };
        WireFields {
            agg: Cow::Owned(flat),
            owner,
        }
    }

    /// Appends the bit-string members of a `ty` at C path `path` starting
    /// `bit_offset` bits into the header; the offset after them.
    pub fn members(&self, ty: &Ty, path: &str, bit_offset: u32, out: &mut Vec<AggField>) -> u32 {
        let Ty::Struct(id) = ty else {
            out.push(AggField {
                name: path.to_string(),
                ty: ty.clone(),
                bit_offset,
            });
            return bit_offset + ty.width().unwrap_or(0);
        };
        let fields = self.prog.agg(*id).map_or(&[][..], |a| a.fields.as_slice());
        fields.iter().fold(bit_offset, |offset, f| {
            let member = format!("{path}.{}", c_ident(&f.name));
            self.members(&f.ty, &member, offset, out)
        })
    }
}
