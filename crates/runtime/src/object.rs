//! A BPF object loaded into the kernel through libbpf: its programs and
//! maps by name. Knows nothing of P4; `pipeline` adds the description.
//! Loading captures the verifier's log per program, so a rejection comes
//! back as [`RuntimeError::Verifier`] rather than text on stderr.

use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::{libbpf_log, sys};
use std::ffi::{CStr, CString};
use std::ptr::NonNull;

/// Verifier log kept per program; the kernel keeps the tail when it is
/// longer, which is where the reason for a rejection is.
const VERIFIER_LOG_BYTES: usize = 4 << 20;
/// `errno` for "operation not permitted".
const EPERM: i32 = 1;

pub struct LoadedObject {
    object: NonNull<sys::BpfObject>,
    /// libbpf may refer to the image it opened until the object is closed.
    _image: Vec<u8>,
}

/// Whether a loaded program notes the ports of its packets in its output
/// record (`p4bpf_layout::NOTES_SECTION`): test runs read the record, a
/// deployed pipeline and the bench do not, and without notes the verifier
/// removes them as dead code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortNotes {
    Kept,
    Off,
}

/// Instruction counts of a loaded program, as the kernel reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramStats {
    /// Instructions after the verifier's rewrites.
    pub xlated_insns: u32,
    /// Instructions the verifier processed (0 on kernels before 5.16).
    pub verified_insns: u32,
}

/// Whether this process may load BPF programs; the error says why not.
pub fn check_bpf_available() -> Result<()> {
    libbpf_log::install();
    // SAFETY: plain probe call with no options.
    let answer = unsafe { sys::libbpf_probe_bpf_prog_type(sys::PROG_TYPE_XDP, std::ptr::null()) };
    // SAFETY: geteuid has no preconditions.
    let is_root = unsafe { sys::geteuid() } == 0;
    match answer {
        1 => Ok(()),
        // libbpf reports a refused probe as "unsupported"; without root that
        // is almost always missing permission.
        e if e == -EPERM || !is_root => Err(RuntimeError::NotSupported(
            "loading BPF programs needs root or CAP_BPF + CAP_NET_ADMIN".into(),
        )),
        0 => Err(RuntimeError::NotSupported(
            "the kernel does not support XDP programs".into(),
        )),
        e => Err(RuntimeError::NotSupported(format!(
            "cannot load BPF programs: {}",
            std::io::Error::from_raw_os_error(-e)
        ))),
    }
}

impl LoadedObject {
    /// Open `image` (an ELF BPF object) and load every program and map.
    pub fn load(image: Vec<u8>) -> Result<LoadedObject> {
        LoadedObject::load_with(image, PortNotes::Kept)
    }

    /// [`LoadedObject::load`], its port notes kept or turned off.
    pub fn load_with(image: Vec<u8>, notes: PortNotes) -> Result<LoadedObject> {
        libbpf_log::install();
        libbpf_log::take();
        // SAFETY: the image outlives the object (kept in the struct).
        let raw = unsafe {
            sys::bpf_object__open_mem(image.as_ptr().cast(), image.len(), std::ptr::null())
        };
        let object = NonNull::new(raw).ok_or_else(|| RuntimeError::BadObject(open_failure()))?;
        let loaded = LoadedObject {
            object,
            _image: image,
        };
        if notes == PortNotes::Off {
            turn_port_notes_off(loaded.object)?;
        }
        let mut logs = loaded.attach_log_buffers();
        // SAFETY: object is a live handle; the log buffers outlive the call.
        let status = unsafe { sys::bpf_object__load(loaded.object.as_ptr()) };
        if status < 0 {
            return Err(load_failure(-status, &mut logs));
        }
        Ok(loaded)
    }

    fn programs(&self) -> Vec<NonNull<sys::BpfProgram>> {
        let mut programs = Vec::new();
        let mut previous = std::ptr::null_mut();
        loop {
            // SAFETY: walking libbpf's own program list.
            let next = unsafe { sys::bpf_object__next_program(self.object.as_ptr(), previous) };
            match NonNull::new(next) {
                Some(program) => programs.push(program),
                None => return programs,
            }
            previous = next;
        }
    }

    fn attach_log_buffers(&self) -> Vec<(String, Vec<u8>)> {
        let mut logs = Vec::new();
        for program in self.programs() {
            let mut buffer = vec![0u8; VERIFIER_LOG_BYTES];
            // SAFETY: the buffer lives in `logs` until load returns; moving
            // the Vec does not move its heap storage.
            unsafe {
                sys::bpf_program__set_log_buf(
                    program.as_ptr(),
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                );
            }
            logs.push((program_name(program), buffer));
        }
        logs
    }

    /// File descriptor of the program (function) named `name`.
    pub fn program_fd(&self, name: &str) -> Result<i32> {
        let c_name = c_string(name)?;
        // SAFETY: live object, NUL-terminated name.
        let program =
            unsafe { sys::bpf_object__find_program_by_name(self.object.as_ptr(), c_name.as_ptr()) };
        let program = NonNull::new(program).ok_or_else(|| {
            RuntimeError::BadObject(format!("the object has no program `{name}`"))
        })?;
        // SAFETY: live program handle.
        Ok(unsafe { sys::bpf_program__fd(program.as_ptr()) })
    }

    /// The map named `name`.
    pub fn map(&self, name: &str) -> Result<Map> {
        let c_name = c_string(name)?;
        // SAFETY: live object, NUL-terminated name.
        let map =
            unsafe { sys::bpf_object__find_map_by_name(self.object.as_ptr(), c_name.as_ptr()) };
        let map = NonNull::new(map)
            .ok_or_else(|| RuntimeError::BadObject(format!("the object has no map `{name}`")))?;
        // SAFETY: live map handle of a loaded object.
        unsafe {
            Ok(Map::new(
                name,
                sys::bpf_map__fd(map.as_ptr()),
                sys::bpf_map__key_size(map.as_ptr()),
                sys::bpf_map__value_size(map.as_ptr()),
                sys::bpf_map__max_entries(map.as_ptr()),
                sys::bpf_map__type(map.as_ptr()),
            ))
        }
    }

    /// Instruction counts of program `name`.
    pub fn program_stats(&self, name: &str) -> Result<ProgramStats> {
        program_stats_by_fd(self.program_fd(name)?)
    }
}

/// Instruction counts of the loaded program behind `fd`, from
/// `bpf_prog_info` (xlated length and the verifier's processed count).
pub(crate) fn program_stats_by_fd(fd: i32) -> Result<ProgramStats> {
    let mut info = [0u8; sys::PROG_INFO_SIZE];
    let mut length = info.len() as u32;
    // SAFETY: the kernel writes at most `length` bytes into `info`.
    let status = unsafe { sys::bpf_obj_get_info_by_fd(fd, info.as_mut_ptr().cast(), &mut length) };
    if status < 0 {
        return Err(RuntimeError::os("reading program info", -status));
    }
    let word = |at: usize| {
        info.get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_ne_bytes)
            .unwrap_or(0)
    };
    Ok(ProgramStats {
        xlated_insns: word(sys::PROG_INFO_XLATED_LEN) / 8,
        verified_insns: word(sys::PROG_INFO_VERIFIED_INSNS),
    })
}

impl Drop for LoadedObject {
    fn drop(&mut self) {
        // SAFETY: the handle is live and closed exactly once.
        unsafe { sys::bpf_object__close(self.object.as_ptr()) }
    }
}

fn c_string(name: &str) -> Result<CString> {
    CString::new(name)
        .map_err(|_| RuntimeError::Value(format!("name `{name}` contains a NUL byte")))
}

fn program_name(program: NonNull<sys::BpfProgram>) -> String {
    // SAFETY: libbpf returns a NUL-terminated name owned by the program.
    unsafe {
        let name = sys::bpf_program__name(program.as_ptr());
        if name.is_null() {
            return String::new();
        }
        CStr::from_ptr(name).to_string_lossy().into_owned()
    }
}

fn open_failure() -> String {
    let errno = sys::last_errno();
    let warnings = libbpf_log::take();
    format!(
        "libbpf cannot open it ({}){}",
        std::io::Error::from_raw_os_error(errno),
        indented(&warnings)
    )
}

/// Sets the port-notes flag of an opened, not yet loaded object to 0; an
/// object without an output record has no flag and is left as it is.
pub(crate) fn turn_port_notes_off(object: NonNull<sys::BpfObject>) -> Result<()> {
    let name = c_string(p4bpf_layout::NOTES_SECTION)?;
    // SAFETY: live object, NUL-terminated name.
    let map = unsafe { sys::bpf_object__find_map_by_name(object.as_ptr(), name.as_ptr()) };
    if map.is_null() {
        return Ok(());
    }
    let mut size = 0usize;
    // SAFETY: a map of an opened object: libbpf hands out its data to fill
    // before the load, `size` bytes of it.
    let data = unsafe { sys::bpf_map__initial_value(map, &mut size) };
    if data.is_null() || size == 0 {
        return Err(RuntimeError::BadObject(format!(
            "`{}` holds no flag",
            p4bpf_layout::NOTES_SECTION
        )));
    }
    // SAFETY: the first of `size` writable bytes; the flag is the only variable.
    unsafe { data.cast::<u8>().write(0) };
    Ok(())
}

fn load_failure(errno: i32, logs: &mut [(String, Vec<u8>)]) -> RuntimeError {
    let warnings = libbpf_log::take();
    if errno == EPERM {
        return RuntimeError::NotSupported(
            "loading BPF programs needs root or CAP_BPF + CAP_NET_ADMIN".into(),
        );
    }
    for (program, buffer) in logs.iter_mut() {
        let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
        let log = String::from_utf8_lossy(buffer.get(..end).unwrap_or_default())
            .trim_end()
            .to_string();
        if !log.is_empty() {
            return RuntimeError::Verifier {
                program: std::mem::take(program),
                log,
                at: None,
                involving: None,
            };
        }
    }
    RuntimeError::BadObject(format!(
        "libbpf cannot load it ({}){}",
        std::io::Error::from_raw_os_error(errno),
        indented(&warnings)
    ))
}

fn indented(text: &str) -> String {
    text.lines().map(|line| format!("\n  {line}")).collect()
}
