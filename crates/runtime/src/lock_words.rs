//! The lock words of `@atomic` blocks that call kernel helpers (the
//! compiler's `emit/lock_word.rs`): how many blocks the CPUs skipped
//! because they did not win their word within its bound of tries. A block
//! is never run without its lock; a skipped one is counted here, and
//! `pipeline show` prints the sum.

use crate::{MapSource, Result, RuntimeError};
use p4bpf_layout::LOCK_TIMEOUTS_MAP;

/// The blocks skipped on every CPU, or `None` when the program has no
/// lock word (and so no such map).
pub fn skipped_blocks(source: &dyn MapSource) -> Result<Option<u64>> {
    let Ok(map) = source.map(LOCK_TIMEOUTS_MAP) else {
        return Ok(None);
    };
    let mut total = 0u64;
    for per_cpu in map.read(&0u32.to_ne_bytes())? {
        let bytes: [u8; 8] = per_cpu
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                RuntimeError::BadObject(format!("`{LOCK_TIMEOUTS_MAP}` holds no u64"))
            })?;
        total = total.saturating_add(u64::from_ne_bytes(bytes));
    }
    Ok(Some(total))
}
