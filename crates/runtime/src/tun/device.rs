//! One TUN device (`IFF_TUN` with the 4-byte packet-information header):
//! a frame written to its descriptor enters the interface exactly as
//! written, whatever its length (no Ethernet header is required of an L3
//! device), with the protocol the header gives; a frame the interface
//! sends is read back from the descriptor.

use crate::error::{Result, RuntimeError};
use crate::sys_net;
use std::ffi::{c_int, c_ulong};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;

/// `_IOW('T', 202, int)`: attach the descriptor to a new interface.
const TUNSETIFF: c_ulong = 0x4004_54ca;
/// `_IOW('T', 205, int)`: set the interface's link type (while down).
const TUNSETLINK: c_ulong = 0x4004_54cd;
/// `ARPHRD_ETHER`: `bpf_redirect` keeps a link-layer header for it.
const ARPHRD_ETHER: c_ulong = 1;
const SIOCGIFFLAGS: c_ulong = 0x8913;
const SIOCSIFFLAGS: c_ulong = 0x8914;
const IFF_TUN: i16 = 0x0001;
const IFF_UP: i16 = 0x0001;
const O_NONBLOCK: c_int = 0o4000;
const AF_INET: c_int = 2;
const SOCK_DGRAM: c_int = 2;
const IF_NAME_SIZE: usize = 16;
/// `struct tun_pi`: flags, then the protocol in network order.
const PI_SIZE: usize = 4;
/// Largest frame read back.
const FRAME_MAX: usize = 65536;

/// `struct ifreq` with the flags member of its union.
#[repr(C)]
struct IfReq {
    name: [u8; IF_NAME_SIZE],
    flags: i16,
    _rest: [u8; 22],
}

extern "C" {
    fn ioctl(fd: c_int, request: c_ulong, ...) -> c_int;
}

pub struct Tun {
    file: File,
    pub ifindex: u32,
}

impl Tun {
    /// A new TUN interface `name`, up, in the calling thread's namespace;
    /// typed Ethernet if `ethernet` (its frames stay as written either way).
    pub fn create(name: &str, ethernet: bool) -> Result<Tun> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(O_NONBLOCK)
            .open("/dev/net/tun")
            .map_err(|e| RuntimeError::NotSupported(format!("cannot open /dev/net/tun ({e})")))?;
        let mut request = if_request(name)?;
        request.flags = IFF_TUN;
        // SAFETY: `request` is a valid `struct ifreq` the call reads.
        if unsafe { ioctl(file.as_raw_fd(), TUNSETIFF, &mut request) } != 0 {
            return Err(RuntimeError::os(
                format!("creating TUN device `{name}`"),
                crate::sys::last_errno(),
            ));
        }
        // SAFETY: TUNSETLINK takes its argument by value.
        if ethernet && unsafe { ioctl(file.as_raw_fd(), TUNSETLINK, ARPHRD_ETHER) } != 0 {
            return Err(RuntimeError::os(
                format!("typing TUN device `{name}` Ethernet"),
                crate::sys::last_errno(),
            ));
        }
        set_up(name)?;
        Ok(Tun {
            file,
            ifindex: crate::ports::ifindex(name)?,
        })
    }

    pub fn raw_fd(&self) -> i32 {
        self.file.as_raw_fd()
    }

    /// Make `frame` arrive on the interface as a packet of `protocol`.
    pub fn send(&self, protocol: u16, frame: &[u8]) -> Result<()> {
        let mut bytes = vec![0, 0];
        bytes.extend(protocol.to_be_bytes());
        bytes.extend(frame);
        (&self.file)
            .write_all(&bytes)
            .map_err(|e| RuntimeError::Value(format!("writing a frame to a TUN device: {e}")))
    }

    /// The next frame the interface sent, if one waits (never blocks).
    pub fn receive(&self) -> Result<Option<Vec<u8>>> {
        let mut buffer = vec![0u8; FRAME_MAX + PI_SIZE];
        match (&self.file).read(&mut buffer) {
            Ok(got) => Ok(buffer.get(PI_SIZE..got).map(<[u8]>::to_vec)),
            Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(RuntimeError::Value(format!(
                "reading a frame from a TUN device: {e}"
            ))),
        }
    }
}

fn if_request(name: &str) -> Result<IfReq> {
    let mut request = IfReq {
        name: [0; IF_NAME_SIZE],
        flags: 0,
        _rest: [0; 22],
    };
    let bytes = name.as_bytes();
    let slot = request
        .name
        .get_mut(..bytes.len())
        .filter(|_| bytes.len() < IF_NAME_SIZE)
        .ok_or_else(|| RuntimeError::Value(format!("interface name `{name}` is too long")))?;
    slot.copy_from_slice(bytes);
    Ok(request)
}

/// Set interface `name` up (the interface flags, through any socket).
fn set_up(name: &str) -> Result<()> {
    // SAFETY: plain socket call.
    let fd = unsafe { sys_net::socket(AF_INET, SOCK_DGRAM | sys_net::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(RuntimeError::os(
            "opening a socket",
            crate::sys::last_errno(),
        ));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut request = if_request(name)?;
    // SAFETY: `request` is a valid `struct ifreq` both calls read and fill.
    let status = unsafe {
        if ioctl(socket.as_raw_fd(), SIOCGIFFLAGS, &mut request) != 0 {
            -1
        } else {
            request.flags |= IFF_UP;
            ioctl(socket.as_raw_fd(), SIOCSIFFLAGS, &mut request)
        }
    };
    if status != 0 {
        return Err(RuntimeError::os(
            format!("setting `{name}` up"),
            crate::sys::last_errno(),
        ));
    }
    Ok(())
}
