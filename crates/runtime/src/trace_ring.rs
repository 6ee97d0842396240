//! Reading a BPF ring buffer (`BPF_MAP_TYPE_RINGBUF`) through libbpf: the
//! records a traced pipeline writes ([`p4bpf_layout::trace`]).

use crate::error::{Result, RuntimeError};
use crate::sys;
use std::ffi::c_void;

/// A consumer of one kernel ring buffer, freed on drop.
pub struct TraceRing {
    ring: *mut sys::RingBuffer,
    /// Where the callback puts records; boxed so its address stays put
    /// when the TraceRing moves (libbpf holds a pointer to it).
    #[allow(clippy::box_collection)]
    records: Box<Vec<Vec<u8>>>,
}

unsafe extern "C" fn collect(ctx: *mut c_void, data: *mut c_void, size: usize) -> i32 {
    // SAFETY: `ctx` is the boxed Vec of the TraceRing that registered this
    // callback, and libbpf hands us `size` readable bytes at `data`.
    let records = unsafe { &mut *ctx.cast::<Vec<Vec<u8>>>() };
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
    records.push(bytes.to_vec());
    0
}

impl TraceRing {
    /// A consumer of the ring buffer map behind `map_fd`.
    pub fn open(map_fd: i32) -> Result<TraceRing> {
        let mut records: Box<Vec<Vec<u8>>> = Box::default();
        let ctx: *mut Vec<Vec<u8>> = &mut *records;
        // SAFETY: the callback and its context outlive the ring (freed in Drop).
        let ring =
            unsafe { sys::ring_buffer__new(map_fd, Some(collect), ctx.cast(), std::ptr::null()) };
        if ring.is_null() {
            return Err(RuntimeError::os(
                "opening the trace ring buffer",
                sys::last_errno(),
            ));
        }
        Ok(TraceRing { ring, records })
    }

    /// Every record written so far, waiting up to `timeout_ms` for the
    /// first when there is none (0: do not wait).
    pub fn take(&mut self, timeout_ms: i32) -> Result<Vec<Vec<u8>>> {
        // SAFETY: `self.ring` is a live ring_buffer until Drop.
        let status = unsafe {
            if timeout_ms > 0 {
                sys::ring_buffer__poll(self.ring, timeout_ms)
            } else {
                sys::ring_buffer__consume(self.ring)
            }
        };
        // EINTR: a signal (Ctrl-C) woke the wait; what was read is kept.
        if status < 0 && status != -4 {
            return Err(RuntimeError::os("reading the trace ring buffer", -status));
        }
        Ok(std::mem::take(&mut *self.records))
    }
}

impl Drop for TraceRing {
    fn drop(&mut self) {
        // SAFETY: created by ring_buffer__new, freed once.
        unsafe { sys::ring_buffer__free(self.ring) };
    }
}
