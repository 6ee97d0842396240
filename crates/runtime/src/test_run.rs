//! `BPF_PROG_TEST_RUN`: run a loaded program once (or `repeat` times) on a
//! packet and get back the program's return value, the packet as it left,
//! and the kernel's average time per run.

use crate::error::{Result, RuntimeError};
use crate::sys;
use p4bpf_layout::Hook;

/// Room for headers the program pushes (XDP allows 256 bytes of headroom;
/// TC can grow further).
const GROWTH_ROOM: usize = 4096;
/// `errno` when the output buffer was too small.
const ENOSPC: i32 = 28;
/// The kernel refuses test packets shorter than an Ethernet header, at XDP
/// too when XDP metadata is put before a shorter frame (Linux 6.18 answers
/// EINVAL: the frame after the metadata must be 14 bytes as well).
const MIN_PACKET: usize = 14;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutput {
    /// The program's return value (an XDP action or a TC verdict).
    pub retval: u32,
    /// The packet after the program ran.
    pub packet: Vec<u8>,
    /// Average nanoseconds per run.
    pub duration_ns: u32,
}

/// Run program `fd` on `packet`, `repeat` times (at least once).
pub fn run(fd: i32, packet: &[u8], repeat: u32) -> Result<RunOutput> {
    // The hook's own rules are the caller's (`check_length`); this is everyone's.
    check_length(Hook::Xdp, packet)?;
    let mut room = packet.len() + GROWTH_ROOM;
    loop {
        match run_with_room(fd, packet, repeat, room) {
            Err(RuntimeError::Os { errno: ENOSPC, .. }) if room < (1 << 20) => room *= 4,
            other => return other,
        }
    }
}

/// Why `BPF_PROG_TEST_RUN` refuses a packet at a hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Shorter than an Ethernet header (XDP and TC).
    Short { len: usize },
    /// At TC, where the kernel builds an skb: the EtherType announces an
    /// IPv4 or IPv6 header the packet does not hold whole.
    NetworkHeader {
        name: &'static str,
        size: usize,
        len: usize,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Short { len } => write!(f, "shorter than {MIN_PACKET} bytes ({len})"),
            Refusal::NetworkHeader { name, size, len } => write!(
                f,
                "{len} bytes announcing {name} without the whole {size}-byte {name} header"
            ),
        }
    }
}

/// Why `BPF_PROG_TEST_RUN` would refuse `packet` at `hook`, if it would
/// (the kernel answers EINVAL): the user-space target takes any packet,
/// as BMv2 does, and the kernel target sends these through `tun`.
pub fn refusal(hook: Hook, packet: &[u8]) -> Option<Refusal> {
    let len = packet.len();
    if len < MIN_PACKET {
        return Some(Refusal::Short { len });
    }
    let (name, size) = match packet.get(12..14) {
        Some([0x08, 0x00]) => ("IPv4", 20),
        Some([0x86, 0xdd]) => ("IPv6", 40),
        _ => return None,
    };
    (hook == Hook::Tc && len < MIN_PACKET + size).then_some(Refusal::NetworkHeader {
        name,
        size,
        len,
    })
}

/// The packets `BPF_PROG_TEST_RUN` takes at `hook`, checked before the
/// call for a clear message.
pub(crate) fn check_length(hook: Hook, packet: &[u8]) -> Result<()> {
    match refusal(hook, packet) {
        None => Ok(()),
        Some(Refusal::Short { len }) => Err(RuntimeError::NotSupported(format!(
            "BPF_PROG_TEST_RUN needs packets of at least {MIN_PACKET} bytes, this one has {len} (the kernel runs no shorter frame at XDP or TC)"
        ))),
        Some(Refusal::NetworkHeader { name, size, len }) => Err(RuntimeError::NotSupported(format!(
            "BPF_PROG_TEST_RUN at TC needs the whole {size}-byte {name} header the EtherType announces, this packet has {len} bytes"
        ))),
    }
}

fn run_with_room(fd: i32, packet: &[u8], repeat: u32, room: usize) -> Result<RunOutput> {
    let size_in = u32::try_from(packet.len())
        .map_err(|_| RuntimeError::Value("packet is too long".into()))?;
    let mut out = vec![0u8; room];
    let mut opts = sys::TestRunOpts {
        sz: std::mem::size_of::<sys::TestRunOpts>(),
        data_in: packet.as_ptr().cast(),
        data_out: out.as_mut_ptr().cast(),
        data_size_in: size_in,
        data_size_out: u32::try_from(room).unwrap_or(u32::MAX),
        ctx_in: std::ptr::null(),
        ctx_out: std::ptr::null_mut(),
        ctx_size_in: 0,
        ctx_size_out: 0,
        retval: 0,
        repeat: i32::try_from(repeat.max(1)).unwrap_or(i32::MAX),
        duration: 0,
        flags: 0,
        cpu: 0,
        batch_size: 0,
    };
    // SAFETY: every buffer in opts is live and sized as declared.
    let status = unsafe { sys::bpf_prog_test_run_opts(fd, &mut opts) };
    if status < 0 {
        return Err(RuntimeError::os("BPF_PROG_TEST_RUN", -status));
    }
    out.truncate(opts.data_size_out as usize);
    Ok(RunOutput {
        retval: opts.retval,
        packet: out,
        duration_ns: opts.duration,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tc_needs_the_announced_network_header() {
        let frame = |ethertype: [u8; 2], extra: usize| {
            let mut p = vec![0u8; 12];
            p.extend_from_slice(&ethertype);
            p.resize(14 + extra, 0x45);
            p
        };
        assert!(check_length(Hook::Xdp, &frame([8, 0], 0)).is_ok());
        assert!(check_length(Hook::Tc, &frame([8, 0], 19)).is_err());
        assert!(check_length(Hook::Tc, &frame([8, 0], 20)).is_ok());
        assert!(check_length(Hook::Tc, &frame([0x86, 0xdd], 39)).is_err());
        assert!(check_length(Hook::Tc, &frame([0x86, 0xdd], 40)).is_ok());
        assert!(check_length(Hook::Tc, &frame([8, 6], 1)).is_ok());
        assert!(check_length(Hook::Xdp, &[0; 13]).is_err());
    }
}
