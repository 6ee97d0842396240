//! Routes libbpf's own messages into memory instead of stderr: warnings are
//! kept so a failed load can quote them, information and debug chatter
//! (for instance "skipping unrecognized data section .p4bpf.pipeline") is
//! dropped. Formatting a `va_list` from Rust needs its ABI: on x86_64 it is
//! passed as a pointer, which `vsnprintf` takes back; elsewhere libbpf is
//! simply silenced.

use crate::sys;
use std::ffi::{c_char, c_int, c_void};
use std::sync::{Mutex, Once};

const LIBBPF_WARN: c_int = 0;
/// Keep at most this much of libbpf's warnings between two `take` calls.
const KEEP_BYTES: usize = 64 * 1024;

static WARNINGS: Mutex<String> = Mutex::new(String::new());
static INSTALL: Once = Once::new();

/// Install the handler (once per process).
pub fn install() {
    INSTALL.call_once(|| {
        // SAFETY: the handler only formats into a local buffer and appends
        // to a mutex-guarded string.
        unsafe {
            sys::libbpf_set_print(handler());
        }
    });
}

/// The warnings libbpf printed since the last call, oldest first.
pub fn take() -> String {
    match WARNINGS.lock() {
        Ok(mut text) => std::mem::take(&mut *text),
        Err(_) => String::new(),
    }
}

#[cfg(target_arch = "x86_64")]
fn handler() -> sys::PrintFn {
    Some(print_warning)
}

#[cfg(not(target_arch = "x86_64"))]
fn handler() -> sys::PrintFn {
    None
}

#[cfg(target_arch = "x86_64")]
unsafe extern "C" fn print_warning(
    level: c_int,
    format: *const c_char,
    args: *mut c_void,
) -> c_int {
    if level != LIBBPF_WARN {
        return 0;
    }
    let mut buffer = [0u8; 1024];
    // SAFETY: libbpf hands us a valid format and its va_list; vsnprintf
    // writes at most buffer.len() bytes, NUL-terminated.
    let written = unsafe { sys::vsnprintf(buffer.as_mut_ptr().cast(), buffer.len(), format, args) };
    let length = usize::try_from(written).unwrap_or(0).min(buffer.len() - 1);
    let message = String::from_utf8_lossy(buffer.get(..length).unwrap_or_default());
    if let Ok(mut text) = WARNINGS.lock() {
        if text.len() + message.len() <= KEEP_BYTES {
            text.push_str(&message);
        }
    }
    0
}
