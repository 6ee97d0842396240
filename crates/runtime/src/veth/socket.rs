//! A packet socket bound to one interface: sends whole Ethernet frames and
//! receives every frame the interface gets, telling apart those it sent.
//! The receiving stack moves a VLAN tag out of the frame into metadata
//! before packet sockets see it; the tag is put back from `PACKET_AUXDATA`
//! so the frame is compared as it was on the wire.

use crate::error::{Result, RuntimeError};
use crate::sys_net::{self, IoVec, MsgHdr, SockaddrLl};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Largest frame we read (jumbo frames included).
const FRAME_MAX: usize = 65536;
const EAGAIN: i32 = 11;
/// Room for the control messages of one frame.
const CONTROL_BYTES: usize = 256;
/// `struct cmsghdr` is a `size_t` and two ints; its data follows aligned.
const CMSG_HEADER: usize = 16;
const ETHER_ADDRESSES: usize = 12;
const ETHERTYPE_VLAN: u16 = 0x8100;

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
        PacketSocket::bind_protocol(ifindex, interface, sys_net::ETH_P_ALL_BE)
    }

    /// A socket that gets only the frames of `protocol` (network order) the
    /// interface received, after its tc ingress hook ran (`ETH_P_ALL`
    /// sockets see frames before it).
    pub fn bind_protocol(ifindex: u32, interface: &str, protocol: u16) -> Result<PacketSocket> {
        let kind = sys_net::SOCK_RAW | sys_net::SOCK_NONBLOCK | sys_net::SOCK_CLOEXEC;
        // SAFETY: plain socket call.
        let fd = unsafe { sys_net::socket(sys_net::AF_PACKET, kind, i32::from(protocol)) };
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
            protocol,
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
        let on: i32 = 1;
        // SAFETY: an int option of 4 bytes.
        let status = unsafe {
            sys_net::setsockopt(
                fd.as_raw_fd(),
                sys_net::SOL_PACKET,
                sys_net::PACKET_AUXDATA,
                (&on as *const i32).cast(),
                4,
            )
        };
        if status != 0 {
            return Err(RuntimeError::os(
                "asking for packet metadata",
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
        let mut control = [0u64; CONTROL_BYTES / 8];
        let mut iov = IoVec {
            base: buffer.as_mut_ptr().cast(),
            length: buffer.len(),
        };
        let mut message = MsgHdr {
            name: (&mut address as *mut SockaddrLl).cast(),
            name_length: std::mem::size_of::<SockaddrLl>() as u32,
            iov: &mut iov,
            iov_length: 1,
            control: control.as_mut_ptr().cast(),
            control_length: CONTROL_BYTES,
            flags: 0,
        };
        // SAFETY: every pointer in `message` points at a live buffer of the
        // length given beside it.
        let got = unsafe { sys_net::recvmsg(self.raw_fd(), &mut message, 0) };
        if got < 0 {
            let errno = crate::sys::last_errno();
            return if errno == EAGAIN {
                Ok(None)
            } else {
                Err(RuntimeError::os("receiving a packet", errno))
            };
        }
        buffer.truncate(got as usize);
        let control: Vec<u8> = control.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let used = control.get(..message.control_length).unwrap_or_default();
        if let Some(tag) = vlan_tag(used) {
            let at = ETHER_ADDRESSES.min(buffer.len());
            buffer.splice(at..at, tag);
        }
        Ok(Some(Frame {
            bytes: buffer,
            outgoing: address.pkttype == sys_net::PACKET_OUTGOING,
        }))
    }
}

/// The 4 bytes of the VLAN tag the stack took out, from the frame's
/// control messages (`struct tpacket_auxdata`: status, len, snaplen, mac,
/// net, vlan_tci, vlan_tpid).
fn vlan_tag(control: &[u8]) -> Option<[u8; 4]> {
    let u32_at = |b: &[u8], at: usize| b.get(at..at + 4)?.try_into().ok().map(u32::from_ne_bytes);
    let u16_at = |b: &[u8], at: usize| b.get(at..at + 2)?.try_into().ok().map(u16::from_ne_bytes);
    let mut at = 0;
    while let Some(length) = control.get(at..at + 8).and_then(|b| b.try_into().ok()) {
        let length = u64::from_ne_bytes(length) as usize;
        let level = u32_at(control, at + 8)? as i32;
        let kind = u32_at(control, at + 12)? as i32;
        if level == sys_net::SOL_PACKET && kind == sys_net::PACKET_AUXDATA {
            let data = control.get(at + CMSG_HEADER..at + length)?;
            let status = u32_at(data, 0)?;
            if status & sys_net::TP_STATUS_VLAN_VALID == 0 {
                return None;
            }
            let tci = u16_at(data, 16)?;
            let tpid = match u16_at(data, 18)? {
                tpid if status & sys_net::TP_STATUS_VLAN_TPID_VALID != 0 => tpid,
                _ => ETHERTYPE_VLAN,
            };
            let [a, b] = tpid.to_be_bytes();
            let [c, d] = tci.to_be_bytes();
            return Some([a, b, c, d]);
        }
        if length < CMSG_HEADER {
            return None;
        }
        at += length.div_ceil(8) * 8;
    }
    None
}

/// Wait until one of `sockets` has a frame or `timeout_ms` passes; whether
/// one has.
pub fn wait_any(sockets: &[&PacketSocket], timeout_ms: i32) -> Result<bool> {
    let fds: Vec<i32> = sockets.iter().map(|s| s.raw_fd()).collect();
    wait_any_fd(&fds, timeout_ms)
}

/// Wait until one of the descriptors `fds` is readable or `timeout_ms`
/// passes; whether one is.
pub fn wait_any_fd(fds: &[i32], timeout_ms: i32) -> Result<bool> {
    let mut fds: Vec<sys_net::PollFd> = fds
        .iter()
        .map(|&fd| sys_net::PollFd {
            fd,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn auxdata(status: u32, tci: u16, tpid: u16) -> Vec<u8> {
        let mut control = Vec::new();
        control.extend(((CMSG_HEADER + 20) as u64).to_ne_bytes());
        control.extend(sys_net::SOL_PACKET.to_ne_bytes());
        control.extend(sys_net::PACKET_AUXDATA.to_ne_bytes());
        control.extend(status.to_ne_bytes());
        control.extend([0u8; 12]);
        control.extend(tci.to_ne_bytes());
        control.extend(tpid.to_ne_bytes());
        control
    }

    #[test]
    fn vlan_tag_comes_back_from_auxdata() {
        let valid = sys_net::TP_STATUS_VLAN_VALID;
        assert_eq!(vlan_tag(&auxdata(valid, 0x64, 0)), Some([0x81, 0, 0, 0x64]));
        let with_tpid = valid | sys_net::TP_STATUS_VLAN_TPID_VALID;
        assert_eq!(
            vlan_tag(&auxdata(with_tpid, 5, 0x88a8)),
            Some([0x88, 0xa8, 0, 5])
        );
        assert_eq!(vlan_tag(&auxdata(0, 0x64, 0)), None);
        assert_eq!(vlan_tag(&[1, 2, 3]), None);
        assert_eq!(vlan_tag(&[]), None);
    }
}
