//! The few libbpf 1.x entry points the runtime uses, declared by hand and
//! linked against the system's shared libbpf (see the crate docs for why not
//! libbpf-rs). Every function here is a raw binding; the safe wrappers live
//! in `object`, `map` and `test_run`. Error convention (libbpf 1.0 mode):
//! integer calls return a negative errno; pointer calls return NULL and set
//! `errno`.

use std::ffi::{c_char, c_int, c_void};

/// Opaque libbpf handles.
#[repr(C)]
pub struct BpfObject {
    _private: [u8; 0],
}
#[repr(C)]
pub struct BpfProgram {
    _private: [u8; 0],
}
#[repr(C)]
pub struct BpfMap {
    _private: [u8; 0],
}
#[repr(C)]
pub struct RingBuffer {
    _private: [u8; 0],
}

/// `ring_buffer_sample_fn`: one record of `size` bytes at `data`.
pub type RingSampleFn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, data: *mut c_void, size: usize) -> c_int>;

/// `struct bpf_test_run_opts` of libbpf 1.1 (`sz` carries its size, so
/// older and newer libbpf builds accept it).
#[repr(C)]
pub struct TestRunOpts {
    pub sz: usize,
    pub data_in: *const c_void,
    pub data_out: *mut c_void,
    pub data_size_in: u32,
    pub data_size_out: u32,
    pub ctx_in: *const c_void,
    pub ctx_out: *mut c_void,
    pub ctx_size_in: u32,
    pub ctx_size_out: u32,
    pub retval: u32,
    pub repeat: c_int,
    pub duration: u32,
    pub flags: u32,
    pub cpu: u32,
    pub batch_size: u32,
}

/// `BPF_PROG_TYPE_XDP` from `linux/bpf.h`, used to probe for BPF support.
pub const PROG_TYPE_XDP: c_int = 6;

/// Offsets inside `struct bpf_prog_info` (Linux 5.16+ layout; the kernel
/// zero-fills what an older one does not know).
pub const PROG_INFO_SIZE: usize = 232;
pub const PROG_INFO_XLATED_LEN: usize = 20;
pub const PROG_INFO_VERIFIED_INSNS: usize = 216;

/// `libbpf_print_fn_t`; `args` is a `va_list`, which on x86_64 is passed as
/// a pointer.
pub type PrintFn =
    Option<unsafe extern "C" fn(level: c_int, format: *const c_char, args: *mut c_void) -> c_int>;

#[link(name = "bpf")]
extern "C" {
    pub fn libbpf_set_print(print: PrintFn) -> PrintFn;
    pub fn libbpf_num_possible_cpus() -> c_int;
    pub fn libbpf_probe_bpf_prog_type(prog_type: c_int, opts: *const c_void) -> c_int;

    pub fn bpf_object__open_mem(
        buf: *const c_void,
        size: usize,
        opts: *const c_void,
    ) -> *mut BpfObject;
    pub fn bpf_object__load(object: *mut BpfObject) -> c_int;
    pub fn bpf_object__close(object: *mut BpfObject);
    pub fn bpf_object__find_program_by_name(
        object: *const BpfObject,
        name: *const c_char,
    ) -> *mut BpfProgram;
    pub fn bpf_object__next_program(
        object: *const BpfObject,
        previous: *mut BpfProgram,
    ) -> *mut BpfProgram;
    pub fn bpf_object__find_map_by_name(
        object: *const BpfObject,
        name: *const c_char,
    ) -> *mut BpfMap;

    pub fn bpf_program__name(program: *const BpfProgram) -> *const c_char;
    pub fn bpf_program__fd(program: *const BpfProgram) -> c_int;
    pub fn bpf_program__set_log_buf(
        program: *mut BpfProgram,
        buf: *mut c_char,
        size: usize,
    ) -> c_int;

    pub fn bpf_map__fd(map: *const BpfMap) -> c_int;
    pub fn bpf_map__key_size(map: *const BpfMap) -> u32;
    pub fn bpf_map__value_size(map: *const BpfMap) -> u32;
    pub fn bpf_map__max_entries(map: *const BpfMap) -> u32;
    pub fn bpf_map__type(map: *const BpfMap) -> c_int;
    pub fn bpf_map__initial_value(map: *mut BpfMap, size: *mut usize) -> *mut c_void;

    pub fn bpf_map_update_elem(
        fd: c_int,
        key: *const c_void,
        value: *const c_void,
        flags: u64,
    ) -> c_int;
    pub fn bpf_map_lookup_elem(fd: c_int, key: *const c_void, value: *mut c_void) -> c_int;

    pub fn bpf_prog_test_run_opts(fd: c_int, opts: *mut TestRunOpts) -> c_int;
    pub fn bpf_obj_get_info_by_fd(fd: c_int, info: *mut c_void, info_len: *mut u32) -> c_int;

    pub fn ring_buffer__new(
        map_fd: c_int,
        sample: RingSampleFn,
        ctx: *mut c_void,
        opts: *const c_void,
    ) -> *mut RingBuffer;
    pub fn ring_buffer__poll(ring: *mut RingBuffer, timeout_ms: c_int) -> c_int;
    pub fn ring_buffer__consume(ring: *mut RingBuffer) -> c_int;
    pub fn ring_buffer__free(ring: *mut RingBuffer);
}

extern "C" {
    /// From libc: who we run as, to explain a failed BPF probe.
    pub fn geteuid() -> u32;
    /// From libc, to format libbpf's messages.
    pub fn vsnprintf(
        buf: *mut c_char,
        size: usize,
        format: *const c_char,
        args: *mut c_void,
    ) -> c_int;
}

/// The thread's last `errno`, for libbpf calls that return NULL.
pub fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}
