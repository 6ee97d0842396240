//! Reads a counter cell of a loaded pipeline, summed over all CPUs (the
//! generated code counts per CPU so packets never contend for a cache line).

use crate::error::{Result, RuntimeError};
use crate::map_source::MapSource;
use p4bpf_layout::{Counter, CounterKind};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterValue {
    pub packets: Option<u64>,
    pub bytes: Option<u64>,
}

/// Cell `index` of `counter`; a sparse cell never touched reads as zero.
/// A sparse counter is a hash of at most `size` cells with any u32 index; a
/// dense one has indexes below `size`.
pub fn read(pipeline: &impl MapSource, counter: &Counter, index: u32) -> Result<CounterValue> {
    if !counter.sparse && index >= counter.size {
        return Err(RuntimeError::Value(format!(
            "counter `{}` has {} cells, index {index} is out of range",
            counter.name, counter.size
        )));
    }
    let map = pipeline.map(&counter.map)?;
    let per_cpu = match map.read(&index.to_ne_bytes()) {
        Ok(values) => values,
        Err(RuntimeError::KeyNotFound { .. }) if counter.sparse => Vec::new(),
        Err(other) => return Err(other),
    };
    let sum_at = |slot: usize| -> u64 {
        per_cpu
            .iter()
            .filter_map(|cell| {
                cell.get(slot * 8..slot * 8 + 8)
                    .and_then(|b| b.try_into().ok())
            })
            .map(u64::from_ne_bytes)
            .fold(0u64, u64::wrapping_add)
    };
    Ok(match counter.kind {
        CounterKind::Packets => CounterValue {
            packets: Some(sum_at(0)),
            bytes: None,
        },
        CounterKind::Bytes => CounterValue {
            packets: None,
            bytes: Some(sum_at(0)),
        },
        CounterKind::PacketsAndBytes => CounterValue {
            packets: Some(sum_at(0)),
            bytes: Some(sum_at(1)),
        },
    })
}
