//! BMv2's register commands in STF: `register_read NAME INDEX`,
//! `register_write NAME INDEX VALUE` and `register_reset NAME`. A register
//! is the array map the compiler named after its dotted P4 name
//! (`MyIngress.totals` is `MyIngress_totals`), one cell per index, each a
//! number in host byte order as wide as the register's C type; an
//! `int<W>` register's (`RegisterInitial::int_width`) is written and shown
//! as a signed number, kept sign-extended to the cell (an STF script may
//! give its W bits instead, as BMv2's do: `int_value::Ints`). A register
//! with an initial value holds value XOR initial in its cells
//! (`Pipeline::register_initials`), so a reset (zeroed) cell reads as the
//! initial value, as PSA says a reset register does. Registers of structs
//! or wide values are `register_composite`'s.

use crate::error::{Result, RuntimeError};
use crate::int_value::{self, Ints};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::{register_composite, value};
use p4bpf_layout::Pipeline;

/// The cell at `index`, as `NAME[INDEX] = VALUE` for the report.
pub fn read(
    source: &impl MapSource,
    description: &Pipeline,
    name: &str,
    index: &str,
) -> Result<String> {
    if let Some(register) = register_composite::find(description, name) {
        return register_composite::read(source, register, index);
    }
    let index = cell_number(name, index)?;
    let mut bytes = host_order_value(source, description, name, index)?;
    bytes.reverse();
    let number = match int_width(description, name) {
        Some(width) => int_value::show(&bytes, width),
        None => bytes
            .iter()
            .fold(0u128, |acc, b| acc << 8 | u128::from(*b))
            .to_string(),
    };
    Ok(format!("register {name}[{index}] = {number}"))
}

/// The cell at `index` of a register of a bit string of at most 64 bits,
/// as big-endian bytes as wide as its cell (P4Runtime's read).
pub fn read_bits(
    source: &impl MapSource,
    description: &Pipeline,
    name: &str,
    index: u32,
) -> Result<Vec<u8>> {
    let mut bytes = host_order_value(source, description, name, index)?;
    bytes.reverse();
    Ok(bytes)
}

/// The value (initial value applied) of the cell at `index`, host order.
fn host_order_value(
    source: &impl MapSource,
    description: &Pipeline,
    name: &str,
    index: u32,
) -> Result<Vec<u8>> {
    let map = register_map(source, name, index)?;
    let cell = map.read(&index.to_ne_bytes())?;
    let mut bytes = cell.first().cloned().unwrap_or_default();
    xor_initial(description, name, &mut bytes);
    Ok(bytes)
}

/// Sets the cell at `index` to `text`; `ints` says whether an int's W
/// bits are taken as they are (BMv2's STF files) or only numbers in its
/// range (`p4bpf register set`, P4Runtime).
pub fn write(
    source: &impl MapSource,
    description: &Pipeline,
    name: &str,
    index: &str,
    text: &str,
    ints: Ints,
) -> Result<()> {
    if let Some(register) = register_composite::find(description, name) {
        return register_composite::write(source, register, index, text, ints);
    }
    let index = cell_number(name, index)?;
    let map = register_map(source, name, index)?;
    let cell_bits = map.value_size() * 8;
    let width = int_width(description, name);
    let len = value::byte_len(cell_bits);
    let bytes =
        int_value::parse_either(text, width.unwrap_or(cell_bits), width.is_some(), len, ints);
    let mut bytes =
        bytes.map_err(|why| RuntimeError::Value(format!("register `{name}`: {why}")))?;
    bytes.reverse(); // big-endian text, host-order cell
    xor_initial(description, name, &mut bytes);
    map.write(&index.to_ne_bytes(), &bytes, Write::Replace)
}

/// A register's cell number as the script wrote it.
fn cell_number(name: &str, index: &str) -> Result<u32> {
    index
        .parse::<u32>()
        .map_err(|_| RuntimeError::Value(format!("register `{name}`: `{index}` is not an index")))
}

/// Every cell back to its initial value: zeroed cells, which read as it.
pub fn reset(pipeline: &impl MapSource, description: &Pipeline, name: &str) -> Result<()> {
    if let Some(register) = register_composite::find(description, name) {
        return register_composite::reset(pipeline, register);
    }
    let map = register_map(pipeline, name, 0)?;
    let zero = vec![0u8; map.value_size() as usize];
    (0..map.max_entries()).try_for_each(|i| map.write(&i.to_ne_bytes(), &zero, Write::Replace))
}

/// `Some(W)` when the register holds `int<W>`s.
fn int_width(description: &Pipeline, name: &str) -> Option<u32> {
    let map = map_name(name);
    let found = description.register_initials.iter().find(|r| r.map == map);
    found.and_then(|r| r.int_width)
}

/// Turns a host-order cell into its value, or a value into its cell: both
/// are the same XOR with the register's initial value (none: 0).
fn xor_initial(description: &Pipeline, name: &str, bytes: &mut [u8]) {
    let map = map_name(name);
    let initial = description
        .register_initials
        .iter()
        .find(|r| r.map == map)
        .map_or(0, |r| r.initial);
    for (byte, mask) in bytes.iter_mut().zip(initial.to_le_bytes()) {
        *byte ^= mask;
    }
}

/// The map the compiler named after a register's dotted P4 name.
fn map_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn register_map(pipeline: &impl MapSource, name: &str, index: u32) -> Result<Map> {
    let map = pipeline.map(&map_name(name)).map_err(|_| {
        RuntimeError::Value(format!(
            "no register `{name}` (give its full P4 name, `Control.register`)"
        ))
    })?;
    if index >= map.max_entries() {
        return Err(RuntimeError::Value(format!(
            "register `{name}` has {} cells, index {index} is out of range",
            map.max_entries()
        )));
    }
    Ok(map)
}
