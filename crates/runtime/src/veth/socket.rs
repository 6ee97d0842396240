//! A packet socket bound to one interface: sends whole Ethernet frames and
//! receives every frame the interface gets, telling apart those it sent.

use crate::error::{Result, RuntimeError};
use crate::sys_net::{self, SockaddrLl};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Largest frame we read (jumbo frames included).
const FRAME_MAX: usize = 65536;
const EAGAIN: i32 = 11;

pub struct PacketSocket {
    fd: OwnedFd,
}

/// One frame received.
pub struct Frame {
    pub bytes: Vec<u8>,
    /// The interface sent it (rather than received it).
    pub outgoing: bool,
}

impl PacketSocket {
    pub fn bind(ifindex: u32, interface: &str) -> Result<PacketSocket> {
        let kind = sys_net::SOCK_RAW | sys_net::SOCK_NONBLOCK | sys_net::SOCK_CLOEXEC;
        // SAFETY: plain socket call.
        let fd =
            unsafe { sys_net::socket(sys_net::AF_PACKET, kind, i32::from(sys_net::ETH_P_ALL_BE)) };
        if fd < 0 {
            return Err(RuntimeError::os(
                "opening a packet socket",
                crate::sys::last_errno(),
            ));
        }
        // SAFETY: a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let address = SockaddrLl {
            family: sys_net::AF_PACKET as u16,
            protocol: sys_net::ETH_P_ALL_BE,
            ifindex: ifindex as i32,
            ..SockaddrLl::default()
        };
        let length = std::mem::size_of::<SockaddrLl>() as u32;
        // SAFETY: address is a valid sockaddr_ll of `length` bytes.
        if unsafe { sys_net::bind(fd.as_raw_fd(), &address, length) } != 0 {
            return Err(RuntimeError::os(
                format!("binding a packet socket to `{interface}`"),
                crate::sys::last_errno(),
            ));
        }
        Ok(PacketSocket { fd })
    }

    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    pub fn send(&self, frame: &[u8]) -> Result<()> {
        // SAFETY: the buffer holds `frame.len()` bytes.
        let sent = unsafe { sys_net::send(self.raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if sent < 0 || sent as usize != frame.len() {
            return Err(RuntimeError::os(
                "sending a packet",
                crate::sys::last_errno(),
            ));
        }
        Ok(())
    }

    /// The next waiting frame, if any (never blocks).
    pub fn receive(&self) -> Result<Option<Frame>> {
        let mut buffer = vec![0u8; FRAME_MAX];
        let mut address = SockaddrLl::default();
        let mut length = std::mem::size_of::<SockaddrLl>() as u32;
        // SAFETY: buffer and address are sized as passed.
        let got = unsafe {
            sys_net::recvfrom(
                self.raw_fd(),
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                0,
                &mut address,
                &mut length,
            )
        };
        if got < 0 {
            let errno = crate::sys::last_errno();
            return if errno == EAGAIN {
                Ok(None)
            } else {
                Err(RuntimeError::os("receiving a packet", errno))
            };
        }
        buffer.truncate(got as usize);
        Ok(Some(Frame {
            bytes: buffer,
            outgoing: address.pkttype == sys_net::PACKET_OUTGOING,
        }))
    }
}

/// Wait until one of `sockets` has a frame or `timeout_ms` passes; whether
/// one has.
pub fn wait_any(sockets: &[&PacketSocket], timeout_ms: i32) -> Result<bool> {
    let mut fds: Vec<sys_net::PollFd> = sockets
        .iter()
        .map(|s| sys_net::PollFd {
            fd: s.raw_fd(),
            events: sys_net::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `fds` holds `fds.len()` entries.
    let ready = unsafe { sys_net::poll(fds.as_mut_ptr(), fds.len() as u64, timeout_ms) };
    if ready < 0 {
        return Err(RuntimeError::os(
            "waiting for packets",
            crate::sys::last_errno(),
        ));
    }
    Ok(ready > 0)
}
