//! Fills a map with many entries at once: `BPF_MAP_UPDATE_BATCH` in chunks,
//! falling back to one update per entry for map types without batch
//! support. Keys and values are given as fixed-size records.

use crate::error::{Result, RuntimeError};
use crate::sys;
use std::ffi::{c_int, c_void};

/// Entries per batch call (the kernel copies each batch through one buffer).
const CHUNK: usize = 4096;
const EINVAL: i32 = 22;
const ENOTSUPP: i32 = 524;
const EOPNOTSUPP: i32 = 95;
/// `BPF_NOEXIST`: insert only, `EEXIST` when the key is there.
const NO_EXIST: u64 = 1;

extern "C" {
    fn bpf_map_update_batch(
        fd: c_int,
        keys: *const c_void,
        values: *const c_void,
        count: *mut u32,
        opts: *const c_void,
    ) -> c_int;
}

/// Write `count` records: key `i` is `keys[i*key_size..]`, value likewise.
pub fn write_all(
    fd: i32,
    keys: &[u8],
    key_size: usize,
    values: &[u8],
    value_size: usize,
) -> Result<()> {
    if key_size == 0 || value_size == 0 || keys.len() / key_size != values.len() / value_size {
        return Err(RuntimeError::Value("keys and values do not pair up".into()));
    }
    let key_chunks = keys.chunks(key_size * CHUNK);
    let value_chunks = values.chunks(value_size * CHUNK);
    for (key_chunk, value_chunk) in key_chunks.zip(value_chunks) {
        let mut count = (key_chunk.len() / key_size) as u32;
        // SAFETY: both buffers hold `count` records of the map's sizes.
        let status = unsafe {
            bpf_map_update_batch(
                fd,
                key_chunk.as_ptr().cast(),
                value_chunk.as_ptr().cast(),
                &mut count,
                std::ptr::null(),
            )
        };
        match -status {
            0 => {}
            EINVAL | ENOTSUPP | EOPNOTSUPP => {
                one_by_one(fd, key_chunk, key_size, value_chunk, value_size)?
            }
            errno => return Err(RuntimeError::os("batch map update", errno)),
        }
    }
    Ok(())
}

/// Where [`insert_each`] stopped: the record and the kernel's errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub at: usize,
    pub errno: i32,
}

/// Insert records one by one with `BPF_NOEXIST` (batch updates take no
/// such flag), stopping at the first the kernel refuses: records before
/// it are in the map.
pub fn insert_each(
    fd: i32,
    keys: &[u8],
    key_size: usize,
    values: &[u8],
    value_size: usize,
) -> std::result::Result<(), Stopped> {
    let records = keys
        .chunks_exact(key_size)
        .zip(values.chunks_exact(value_size));
    for (at, (key, value)) in records.enumerate() {
        // SAFETY: key and value have the map's sizes.
        let status = unsafe {
            sys::bpf_map_update_elem(fd, key.as_ptr().cast(), value.as_ptr().cast(), NO_EXIST)
        };
        if status < 0 {
            return Err(Stopped { at, errno: -status });
        }
    }
    Ok(())
}

fn one_by_one(
    fd: i32,
    keys: &[u8],
    key_size: usize,
    values: &[u8],
    value_size: usize,
) -> Result<()> {
    for (key, value) in keys.chunks(key_size).zip(values.chunks(value_size)) {
        // SAFETY: key and value have the map's sizes.
        let status =
            unsafe { sys::bpf_map_update_elem(fd, key.as_ptr().cast(), value.as_ptr().cast(), 0) };
        if status < 0 {
            return Err(RuntimeError::os("map update", -status));
        }
    }
    Ok(())
}
