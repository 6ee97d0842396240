//! Counter cells by name: read one or all (summed over CPUs by
//! `counter::read`), and reset them. A sparse counter's untouched cells do
//! not exist; reading "all" of one lists only the touched cells.

use super::{delete_key, keys};
use crate::counter::{self, CounterValue};
use crate::error::{Result, RuntimeError};
use crate::map::Write;
use crate::map_source::MapSource;
use p4bpf_layout::Counter;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterCell {
    pub index: u32,
    pub value: CounterValue,
}

/// Which cells an operation covers: `index`, or every cell.
fn indexes(source: &impl MapSource, counter: &Counter, index: Option<u32>) -> Result<Vec<u32>> {
    if let Some(index) = index {
        if !counter.sparse && index >= counter.size {
            return Err(RuntimeError::Value(format!(
                "counter `{}` has {} cells, index {index} is out of range",
                counter.name, counter.size
            )));
        }
        return Ok(vec![index]);
    }
    if !counter.sparse {
        return Ok((0..counter.size).collect());
    }
    let map = source.map(&counter.map)?;
    let mut found: Vec<u32> = keys(&map)?
        .iter()
        .filter_map(|k| {
            k.get(..4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_ne_bytes)
        })
        .collect();
    found.sort_unstable();
    Ok(found)
}

pub fn counter_cells(
    source: &impl MapSource,
    counter: &Counter,
    index: Option<u32>,
) -> Result<Vec<CounterCell>> {
    indexes(source, counter, index)?
        .into_iter()
        .map(|index| {
            counter::read(source, counter, index).map(|value| CounterCell { index, value })
        })
        .collect()
}

/// Zero cell `index`, or every cell.
pub fn reset_counter(source: &impl MapSource, counter: &Counter, index: Option<u32>) -> Result<()> {
    let map = source.map(&counter.map)?;
    let zero = vec![0u8; counter.value_size as usize];
    for index in indexes(source, counter, index)? {
        let key = index.to_ne_bytes();
        if counter.sparse {
            match delete_key(&map, &key) {
                Ok(()) | Err(RuntimeError::KeyNotFound { .. }) => {}
                Err(other) => return Err(other),
            }
        } else {
            map.write(&key, &zero, Write::Replace)?;
        }
    }
    Ok(())
}
