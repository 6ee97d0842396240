//! The libbpf and libc entry points the operations layer adds to `sys`:
//! pinning and opening pins, links (XDP and tcx attachments), map walking
//! and deletion, map creation, interface names and `flock`.
//! Raw bindings only, same error convention as `sys`; the safe wrappers
//! live in `bpffs`, `deploy`, `ports` and `control`.

use std::ffi::{c_char, c_int, c_void};

/// `enum bpf_attach_type` values (tcx is newer than the installed headers).
pub const ATTACH_XDP: c_int = 37;
pub const ATTACH_TCX_INGRESS: c_int = 46;
pub const ATTACH_TCX_EGRESS: c_int = 47;
/// `enum bpf_map_type` values.
pub const MAP_TYPE_ARRAY: c_int = 2;
/// `BPF_MAP_TYPE_DEVMAP_HASH`: ports keyed by any P4 port number.
pub const MAP_TYPE_DEVMAP_HASH: c_int = 25;
/// `XDP_FLAGS_SKB_MODE` / `XDP_FLAGS_DRV_MODE`.
pub const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;
pub const XDP_FLAGS_DRV_MODE: u32 = 1 << 2;
/// `flock` operations.
pub const LOCK_EX: c_int = 2;
/// `open` flags for a directory we only lock.
pub const O_RDONLY_DIRECTORY: c_int = 0o200000;

/// Byte offsets in `struct bpf_map_info` and `struct bpf_prog_info`.
pub const MAP_INFO_SIZE: usize = 88;
pub const INFO_TYPE: usize = 0;
pub const INFO_ID: usize = 4;
pub const MAP_INFO_KEY_SIZE: usize = 8;
pub const MAP_INFO_VALUE_SIZE: usize = 12;
pub const MAP_INFO_MAX_ENTRIES: usize = 16;

/// The head of `struct bpf_link_create_opts`: libbpf reads only what `sz`
/// covers.
#[repr(C)]
pub struct LinkCreateOpts {
    pub sz: usize,
    pub flags: u32,
    pub _pad: u32,
}

#[link(name = "bpf")]
extern "C" {
    pub fn bpf_obj_pin(fd: c_int, path: *const c_char) -> c_int;
    pub fn bpf_obj_get(path: *const c_char) -> c_int;
    pub fn bpf_link_create(
        prog_fd: c_int,
        target: c_int,
        attach_type: c_int,
        opts: *const LinkCreateOpts,
    ) -> c_int;
    pub fn bpf_map_create(
        map_type: c_int,
        name: *const c_char,
        key_size: u32,
        value_size: u32,
        max_entries: u32,
        opts: *const c_void,
    ) -> c_int;
    pub fn bpf_map_get_next_key(fd: c_int, key: *const c_void, next: *mut c_void) -> c_int;
    pub fn bpf_map_delete_elem(fd: c_int, key: *const c_void) -> c_int;
}

extern "C" {
    pub fn open(path: *const c_char, flags: c_int, ...) -> c_int;
    pub fn flock(fd: c_int, operation: c_int) -> c_int;
    pub fn mount(
        source: *const c_char,
        target: *const c_char,
        fs_type: *const c_char,
        flags: u64,
        data: *const c_void,
    ) -> c_int;
    pub fn if_nametoindex(name: *const c_char) -> u32;
    pub fn if_indextoname(index: u32, name: *mut c_char) -> *mut c_char;
}
