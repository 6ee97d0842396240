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
/// `SOL_PACKET` / `PACKET_AUXDATA`: per-frame metadata, the VLAN tag the
/// stack took out of a received frame among it.
pub const SOL_PACKET: c_int = 263;
pub const PACKET_AUXDATA: c_int = 8;
/// `tp_status` bits of `struct tpacket_auxdata`.
pub const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
pub const TP_STATUS_VLAN_TPID_VALID: u32 = 1 << 6;

/// `struct iovec`.
#[repr(C)]
pub struct IoVec {
    pub base: *mut c_void,
    pub length: usize,
}

/// `struct msghdr` (x86_64 glibc layout; `repr(C)` adds its padding).
#[repr(C)]
pub struct MsgHdr {
    pub name: *mut c_void,
    pub name_length: u32,
    pub iov: *mut IoVec,
    pub iov_length: usize,
    pub control: *mut c_void,
    pub control_length: usize,
    pub flags: c_int,
}

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
    pub fn recvmsg(fd: c_int, message: *mut MsgHdr, flags: c_int) -> isize;
    pub fn setsockopt(
        fd: c_int,
        level: c_int,
        name: c_int,
        value: *const c_void,
        length: u32,
    ) -> c_int;
    pub fn poll(fds: *mut PollFd, count: u64, timeout_ms: c_int) -> c_int;
}
