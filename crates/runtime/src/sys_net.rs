//! libc and libbpf entry points of the veth test target: a private network
//! namespace (`unshare`), packet sockets, and loading a two-instruction
//! program. Raw bindings only; the safe wrappers are
//! in `veth::netns` and `veth::socket`.

use std::ffi::{c_int, c_void};

/// `CLONE_NEWNET`.
pub const CLONE_NEWNET: c_int = 0x4000_0000;
pub const AF_PACKET: c_int = 17;
pub const SOCK_RAW: c_int = 3;
pub const SOCK_NONBLOCK: c_int = 0o4000;
pub const SOCK_CLOEXEC: c_int = 0o2000000;
/// `ETH_P_ALL`, in network byte order as `socket` and `bind` want it.
pub const ETH_P_ALL_BE: u16 = 0x0003u16.to_be();
/// `sll_pkttype` of a frame the interface sent.
pub const PACKET_OUTGOING: u8 = 4;
pub const POLLIN: i16 = 1;

/// `struct sockaddr_ll`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct SockaddrLl {
    pub family: u16,
    pub protocol: u16,
    pub ifindex: i32,
    pub hatype: u16,
    pub pkttype: u8,
    pub halen: u8,
    pub addr: [u8; 8],
}

/// `struct pollfd`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PollFd {
    pub fd: c_int,
    pub events: i16,
    pub revents: i16,
}

/// `struct bpf_insn`.
#[repr(C)]
pub struct BpfInsn {
    pub code: u8,
    pub registers: u8,
    pub offset: i16,
    pub immediate: i32,
}

#[link(name = "bpf")]
extern "C" {
    pub fn bpf_prog_load(
        prog_type: c_int,
        name: *const std::ffi::c_char,
        license: *const std::ffi::c_char,
        instructions: *const BpfInsn,
        count: usize,
        opts: *const c_void,
    ) -> c_int;
}

extern "C" {
    pub fn unshare(flags: c_int) -> c_int;
    pub fn socket(domain: c_int, kind: c_int, protocol: c_int) -> c_int;
    pub fn bind(fd: c_int, address: *const SockaddrLl, length: u32) -> c_int;
    pub fn send(fd: c_int, buffer: *const c_void, length: usize, flags: c_int) -> isize;
    pub fn recvfrom(
        fd: c_int,
        buffer: *mut c_void,
        length: usize,
        flags: c_int,
        address: *mut SockaddrLl,
        address_length: *mut u32,
    ) -> isize;
    pub fn poll(fds: *mut PollFd, count: u64, timeout_ms: c_int) -> c_int;
}
