//! A BPF object loaded for benchmarking: like `crate::object`, but every
//! program is loaded with the verifier's statistics log (`BPF_LOG_STATS`),
//! which is the only place the kernel states a program's stack depth, and
//! maps are handed out as raw descriptors for batch updates.

use crate::error::{Result, RuntimeError};
use crate::{libbpf_log, sys};
use std::ffi::{c_int, CString};
use std::ptr::NonNull;

/// `BPF_LOG_STATS`: only the closing statistics, not the instruction trace.
const LOG_LEVEL_STATS: u32 = 4;
const LOG_BYTES: usize = 64 << 10;

extern "C" {
    fn bpf_program__set_log_level(program: *mut sys::BpfProgram, level: u32) -> c_int;
}

pub struct BenchObject {
    object: NonNull<sys::BpfObject>,
    /// (program name, verifier statistics log).
    logs: Vec<(String, String)>,
    _image: Vec<u8>,
}

/// What the kernel says about one loaded program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgramFacts {
    pub xlated_insns: u32,
    /// `bpf_prog_info.verified_insns`: instructions the verifier processed.
    pub verified_insns: u32,
    /// Bytes of stack, summed over the program's functions.
    pub stack_bytes: u32,
}

impl BenchObject {
    pub fn load(image: Vec<u8>) -> Result<BenchObject> {
        libbpf_log::install();
        libbpf_log::take();
        // SAFETY: the image outlives the object (kept in the struct).
        let raw = unsafe {
            sys::bpf_object__open_mem(image.as_ptr().cast(), image.len(), std::ptr::null())
        };
        let object = NonNull::new(raw).ok_or_else(|| {
            RuntimeError::BadObject(format!("libbpf cannot open it: {}", libbpf_log::take()))
        })?;
        // Timed as deployed: no port notes (the bench reads no output record).
        if let Err(e) = crate::object::turn_port_notes_off(object) {
            // SAFETY: the object is not handed out; closed once.
            unsafe { sys::bpf_object__close(object.as_ptr()) };
            return Err(e);
        }
        let mut buffers = Vec::new();
        let mut previous = std::ptr::null_mut();
        loop {
            // SAFETY: walking libbpf's own program list of a live object.
            let program = unsafe { sys::bpf_object__next_program(object.as_ptr(), previous) };
            if program.is_null() {
                break;
            }
            let mut buffer = vec![0u8; LOG_BYTES];
            // SAFETY: the buffer stays in `buffers` until load returns.
            unsafe {
                sys::bpf_program__set_log_buf(program, buffer.as_mut_ptr().cast(), buffer.len());
                bpf_program__set_log_level(program, LOG_LEVEL_STATS);
            }
            buffers.push((program, buffer));
            previous = program;
        }
        // SAFETY: live handle; log buffers outlive the call.
        let status = unsafe { sys::bpf_object__load(object.as_ptr()) };
        let logs = buffers
            .into_iter()
            .map(|(program, buffer)| (program_name(program), log_text(&buffer)))
            .collect::<Vec<_>>();
        let loaded = BenchObject {
            object,
            logs,
            _image: image,
        };
        if status < 0 {
            let detail = loaded
                .logs
                .iter()
                .map(|(_, log)| log.as_str())
                .collect::<String>();
            return Err(RuntimeError::BadObject(format!(
                "the kernel refused it ({}): {}{}",
                std::io::Error::from_raw_os_error(-status),
                libbpf_log::take(),
                detail
            )));
        }
        Ok(loaded)
    }

    pub fn program_fd(&self, name: &str) -> Result<i32> {
        let c_name = c_string(name)?;
        // SAFETY: live object, NUL-terminated name.
        let program =
            unsafe { sys::bpf_object__find_program_by_name(self.object.as_ptr(), c_name.as_ptr()) };
        if program.is_null() {
            return Err(RuntimeError::BadObject(format!(
                "the object has no program `{name}`"
            )));
        }
        // SAFETY: live program handle.
        Ok(unsafe { sys::bpf_program__fd(program) })
    }

    pub fn map_fd(&self, name: &str) -> Result<i32> {
        let c_name = c_string(name)?;
        // SAFETY: live object, NUL-terminated name.
        let map =
            unsafe { sys::bpf_object__find_map_by_name(self.object.as_ptr(), c_name.as_ptr()) };
        if map.is_null() {
            return Err(RuntimeError::BadObject(format!(
                "the object has no map `{name}`"
            )));
        }
        // SAFETY: live map handle.
        Ok(unsafe { sys::bpf_map__fd(map) })
    }

    /// Instruction counts and stack depth of program `name`.
    pub fn facts(&self, name: &str) -> Result<ProgramFacts> {
        let stats = crate::object::program_stats_by_fd(self.program_fd(name)?)?;
        let log = self
            .logs
            .iter()
            .find(|(program, _)| program == name)
            .map(|(_, log)| log.as_str())
            .unwrap_or_default();
        Ok(ProgramFacts {
            xlated_insns: stats.xlated_insns,
            verified_insns: stats.verified_insns,
            stack_bytes: stack_depth(log),
        })
    }
}

impl Drop for BenchObject {
    fn drop(&mut self) {
        // SAFETY: the handle is live and closed exactly once.
        unsafe { sys::bpf_object__close(self.object.as_ptr()) }
    }
}

/// The verifier's `stack depth 16+8` line, summed (one term per function).
pub fn stack_depth(log: &str) -> u32 {
    log.lines()
        .filter_map(|line| line.strip_prefix("stack depth "))
        .flat_map(|terms| terms.trim().split('+'))
        .filter_map(|term| term.trim().parse::<u32>().ok())
        .sum()
}

fn log_text(buffer: &[u8]) -> String {
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(buffer.get(..end).unwrap_or_default()).into_owned()
}

fn program_name(program: *mut sys::BpfProgram) -> String {
    // SAFETY: libbpf returns a NUL-terminated name owned by the program.
    unsafe {
        let name = sys::bpf_program__name(program);
        if name.is_null() {
            return String::new();
        }
        std::ffi::CStr::from_ptr(name)
            .to_string_lossy()
            .into_owned()
    }
}

fn c_string(name: &str) -> Result<CString> {
    CString::new(name)
        .map_err(|_| RuntimeError::Value(format!("name `{name}` contains a NUL byte")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_depth_sums_every_function() {
        let log =
            "processed 12 insns (limit 1000000)\nstack depth 16+8\nverification time 5 usec\n";
        assert_eq!(stack_depth(log), 24);
        assert_eq!(stack_depth("stack depth 0\n"), 0);
        assert_eq!(stack_depth("no statistics"), 0);
    }
}
