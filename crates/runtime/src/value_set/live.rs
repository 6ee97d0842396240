//! Which half of a value set's map packets read (`ValueSet::LIVE_MAP`,
//! a `u32` per set; the compiler's `emit/value_set_live.rs`). Replacing
//! the members writes the spare half, flips the set's word to it, then
//! waits until no packet can still be reading the old half: only then
//! may it be written again (to match the new one, or at the next
//! replace). Outside a replace both halves hold the same members.

use crate::error::{Result, RuntimeError};
use crate::map::Write;
use crate::map_source::MapSource;
use p4bpf_layout::ValueSet;

/// The half of `set` that packets read.
pub(super) fn half(source: &impl MapSource, set: &ValueSet) -> Result<u32> {
    let live = source.map(ValueSet::LIVE_MAP)?;
    let word = live.read(&set.index.to_ne_bytes())?.into_iter().next();
    let word = word.and_then(|w| <[u8; 4]>::try_from(w.as_slice()).ok());
    Ok(word.map_or(0, u32::from_ne_bytes) & 1)
}

/// Makes packets read half `half` of `set`; returns once every packet
/// that may have read the other half is done.
pub(super) fn flip(source: &impl MapSource, set: &ValueSet, half: u32) -> Result<()> {
    let live = source.map(ValueSet::LIVE_MAP)?;
    live.write(
        &set.index.to_ne_bytes(),
        &half.to_ne_bytes(),
        Write::Replace,
    )?;
    if live.user_host().is_some() {
        // The user-space target runs one packet at a time, in this thread.
        return Ok(());
    }
    grace_period()
}

/// `membarrier`'s system call number.
#[cfg(target_arch = "x86_64")]
const MEMBARRIER: std::ffi::c_long = 324;
#[cfg(target_arch = "aarch64")]
const MEMBARRIER: std::ffi::c_long = 283;
/// `MEMBARRIER_CMD_GLOBAL`: returns after an RCU grace period.
const GLOBAL: std::ffi::c_int = 1;

extern "C" {
    fn syscall(number: std::ffi::c_long, ...) -> std::ffi::c_long;
}

/// Waits for an RCU grace period: BPF programs run inside RCU read-side
/// sections (XDP, TC and `BPF_PROG_TEST_RUN` alike), so every packet
/// that started before the call has finished when it returns.
fn grace_period() -> Result<()> {
    // SAFETY: membarrier takes two ints and a cpu id, and touches no memory.
    let status = unsafe { syscall(MEMBARRIER, GLOBAL, 0, 0) };
    if status != 0 {
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        return Err(RuntimeError::os(
            "waiting for packets to leave a value set's old half (membarrier)".to_string(),
            errno,
        ));
    }
    Ok(())
}
