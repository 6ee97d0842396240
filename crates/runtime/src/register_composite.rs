//! The cells of registers whose index or value is a struct or a bit
//! string wider than 64 bits (`Pipeline::composite_registers`). An index
//! or value is written as its fields' values in order, separated by
//! commas (`5,0xffffffffffff`); a value is shown with its fields named
//! (`{port=0xda, srcAddr=0x55, dstAddr=0xd}`), a lone wide one as hex; an
//! `int<W>` field is a signed number (`-5`, `-0x5`), kept sign-extended to
//! its C type as the data path keeps it, and shown in decimal. A
//! cell holds value XOR the register's initial value (its bytes,
//! `CompositeRegister::initial`), so one never written or reset reads as
//! the initial value (zero without one).

use crate::error::{Result, RuntimeError};
use crate::int_value::{self, Ints};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::value;
use p4bpf_layout::{ByteOrder, CompositeRegister, FieldLayout, Pipeline};

/// The composite register `name` (dotted P4 name or map name), if any.
pub fn find<'a>(description: &'a Pipeline, name: &str) -> Option<&'a CompositeRegister> {
    description
        .composite_registers
        .iter()
        .find(|r| r.name == name || r.map == name)
}

/// The cell at `index`, as `register NAME[INDEX] = VALUE`.
pub fn read(source: &impl MapSource, register: &CompositeRegister, index: &str) -> Result<String> {
    let cell = value_bytes(source, register, index)?;
    Ok(format!(
        "register {}[{index}] = {}",
        register.name,
        shown(&register.value, &cell)
    ))
}

/// The cell at `index` as each value field's name and big-endian bytes,
/// in the layout's field order (P4Runtime's `RegisterEntry` read).
pub fn read_fields(
    source: &impl MapSource,
    register: &CompositeRegister,
    index: &str,
) -> Result<Vec<(String, Vec<u8>)>> {
    let cell = value_bytes(source, register, index)?;
    let fields = register.value.iter();
    Ok(fields
        .map(|f| (f.name.clone(), field_bytes(f, &cell)))
        .collect())
}

/// The value (initial value applied) of the cell at `index`.
fn value_bytes(
    source: &impl MapSource,
    register: &CompositeRegister,
    index: &str,
) -> Result<Vec<u8>> {
    let map = source.map(&register.map)?;
    let key = key_bytes(&map, register, index)?;
    let mut cell = match map.read(&key) {
        Ok(cells) => cells.into_iter().next().unwrap_or_default(),
        Err(RuntimeError::KeyNotFound { .. }) => vec![0; map.value_size() as usize],
        Err(e) => return Err(e),
    };
    xor_initial(register, &mut cell);
    Ok(cell)
}

/// Sets the cell at `index` to `value`.
pub fn write(
    source: &impl MapSource,
    register: &CompositeRegister,
    index: &str,
    value: &str,
    ints: Ints,
) -> Result<()> {
    let map = source.map(&register.map)?;
    let key = key_bytes(&map, register, index)?;
    let fields = Fields {
        register: &register.name,
        what: "value",
        layout: &register.value,
        ints,
    };
    let mut cell = encode(&fields, value, map.value_size())?;
    xor_initial(register, &mut cell);
    map.write(&key, &cell, Write::Replace)
}

/// Turns a cell into its value, or a value into its cell: both are the
/// same XOR with the initial value's bytes.
fn xor_initial(register: &CompositeRegister, cell: &mut [u8]) {
    for (byte, mask) in cell.iter_mut().zip(&register.initial) {
        *byte ^= mask;
    }
}

/// Every cell back to the initial value: an array's cells zeroed, a hash
/// map's entries deleted (a missing cell reads as never written).
pub fn reset(source: &impl MapSource, register: &CompositeRegister) -> Result<()> {
    let map = source.map(&register.map)?;
    if register.index.is_empty() {
        let zero = vec![0u8; map.value_size() as usize];
        return (0..map.max_entries())
            .try_for_each(|i| map.write(&i.to_ne_bytes(), &zero, Write::Replace));
    }
    crate::control::keys(&map)?
        .iter()
        .try_for_each(|key| match map.delete(key) {
            Err(RuntimeError::KeyNotFound { .. }) => Ok(()),
            done => done,
        })
}

/// The map key of `index`: an array's cell number, or the hash map's key.
fn key_bytes(map: &Map, register: &CompositeRegister, index: &str) -> Result<Vec<u8>> {
    if !register.index.is_empty() {
        let fields = Fields {
            register: &register.name,
            what: "index",
            layout: &register.index,
            ints: Ints::Strict,
        };
        return encode(&fields, index, map.key_size());
    }
    let cell = index.parse::<u32>().ok().filter(|i| *i < map.max_entries());
    cell.map(|i| i.to_ne_bytes().to_vec()).ok_or_else(|| {
        RuntimeError::Value(format!(
            "register `{}`: `{index}` is not an index below {}",
            register.name,
            map.max_entries()
        ))
    })
}

/// A register's index or value fields, and how their ints are read.
struct Fields<'a> {
    register: &'a str,
    /// `index` or `value`, for errors.
    what: &'a str,
    layout: &'a [FieldLayout],
    ints: Ints,
}

/// `text` (the fields' values, comma-separated) as `size` bytes laid out
/// as `fields` say.
fn encode(fields: &Fields, text: &str, size: u32) -> Result<Vec<u8>> {
    let Fields {
        register,
        what,
        layout: fields,
        ints,
    } = *fields;
    let values: Vec<&str> = text.split(',').map(str::trim).collect();
    if values.len() != fields.len() {
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        return Err(RuntimeError::Value(format!(
            "register `{register}`: the {what} `{text}` has {} values; it takes {} ({}), comma-separated",
            values.len(),
            fields.len(),
            names.join(", ")
        )));
    }
    let mut bytes = vec![0u8; size as usize];
    for (field, text) in fields.iter().zip(values) {
        let mut v = field_value(field, text, ints).map_err(|why| {
            RuntimeError::Value(format!(
                "register `{register}`, {what} field `{}`: {why}",
                field.name
            ))
        })?;
        if field.byte_order == ByteOrder::Host {
            v.reverse();
        }
        let at = field.byte_offset as usize;
        if let Some(slot) = bytes.get_mut(at..at + v.len()) {
            slot.copy_from_slice(&v);
        }
    }
    Ok(bytes)
}

/// A field's text as its big-endian bytes: an int's two's complement
/// fills its C type (`byte_len`), as the data path keeps it.
fn field_value(
    field: &FieldLayout,
    text: &str,
    ints: Ints,
) -> std::result::Result<Vec<u8>, String> {
    let len = value::byte_len(field.bit_width).max(field.byte_len as usize);
    int_value::parse_either(text, field.bit_width, field.signed, len, ints)
}

/// Field `f` of `cell`, big-endian.
fn field_bytes(f: &FieldLayout, cell: &[u8]) -> Vec<u8> {
    let at = f.byte_offset as usize;
    let mut v = cell
        .get(at..at + f.byte_len as usize)
        .unwrap_or_default()
        .to_vec();
    if f.byte_order == ByteOrder::Host {
        v.reverse();
    }
    v
}

/// A cell's value: its fields named, or a lone field's value; bit
/// strings in hex, ints as signed numbers.
fn shown(fields: &[FieldLayout], cell: &[u8]) -> String {
    let text = |f: &FieldLayout| {
        let v = field_bytes(f, cell);
        if f.signed {
            return int_value::show(&v, f.bit_width);
        }
        let digits: String = v.iter().map(|b| format!("{b:02x}")).collect();
        match digits.trim_start_matches('0') {
            "" => "0x0".to_string(),
            d => format!("0x{d}"),
        }
    };
    match fields {
        [one] if one.name == "value" => text(one),
        _ => {
            let named: Vec<String> = fields
                .iter()
                .map(|f| format!("{}={}", f.name, text(f)))
                .collect();
            format!("{{{}}}", named.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(
        name: &str,
        bit_width: u32,
        byte_offset: u32,
        byte_len: u32,
        byte_order: ByteOrder,
    ) -> FieldLayout {
        FieldLayout {
            name: name.into(),
            bit_width,
            byte_offset,
            byte_len,
            byte_order,
            signed: false,
        }
    }

    fn strict<'a>(what: &'a str, layout: &'a [FieldLayout]) -> Fields<'a> {
        Fields {
            register: "r",
            what,
            layout,
            ints: Ints::Strict,
        }
    }

    #[test]
    fn struct_fields_land_at_their_offsets_in_their_byte_order_and_read_back_named() {
        // struct { bit<32> port; bit<48> mac; bit<104> wide; }: u32, u64, u8[13].
        let fields = [
            field("port", 32, 0, 4, ByteOrder::Host),
            field("mac", 48, 8, 8, ByteOrder::Host),
            field("wide", 104, 16, 13, ByteOrder::Network),
        ];
        let bytes =
            encode(&strict("value", &fields), "0xda, 0x0102030405, 0x1", 32).expect("encodes");
        assert_eq!(&bytes[0..4], &[0xda, 0, 0, 0]);
        assert_eq!(&bytes[8..16], &[5, 4, 3, 2, 1, 0, 0, 0]);
        assert_eq!(bytes[28], 1);
        assert_eq!(
            shown(&fields, &bytes),
            "{port=0xda, mac=0x102030405, wide=0x1}"
        );
    }

    #[test]
    fn a_lone_wide_value_shows_as_hex_and_bad_texts_say_what_they_lack() {
        let lone = [field("value", 104, 0, 13, ByteOrder::Network)];
        assert_eq!(shown(&lone, &[0; 13]), "0x0");
        let short = encode(&strict("index", &lone), "1,2", 13).expect_err("two values");
        assert!(short.to_string().contains("takes 1 (value)"), "{short}");
        let wide = encode(&strict("value", &lone), "0x1ffffffffffffffffffffffffff", 13)
            .expect_err("too wide");
        assert!(wide.to_string().contains("value field `value`"), "{wide}");
    }
}
