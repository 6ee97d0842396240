//! Live-frame timing (`BPF_F_TEST_XDP_LIVE_FRAMES`): every repeat is a fresh
//! frame from a page pool, and XDP_TX / XDP_REDIRECT really transmit (TX
//! out of the interface given as the ingress one). This is how programs
//! that push headers are timed, and what gives end-to-end packets per
//! second. The interface must accept XDP frames: for a veth, its peer needs
//! an XDP program (NAPI) or the frames are dropped.

use crate::error::{Result, RuntimeError};
use crate::sys;

/// `BPF_F_TEST_XDP_LIVE_FRAMES`.
const LIVE_FRAMES: u32 = 1 << 1;

/// `struct xdp_md` as the test run reads it from `ctx_in`.
#[repr(C)]
struct XdpMd {
    data: u32,
    data_end: u32,
    data_meta: u32,
    ingress_ifindex: u32,
    rx_queue_index: u32,
    egress_ifindex: u32,
}

/// Average ns per frame of program `fd` over `repeat` live frames arriving
/// on interface `ifindex`.
pub fn time_live(fd: i32, packet: &[u8], repeat: u32, ifindex: u32) -> Result<f64> {
    let size_in = u32::try_from(packet.len())
        .map_err(|_| RuntimeError::Value("packet is too long".into()))?;
    let context = XdpMd {
        data: 0,
        data_end: size_in,
        data_meta: 0,
        ingress_ifindex: ifindex,
        rx_queue_index: 0,
        egress_ifindex: 0,
    };
    let mut opts = sys::TestRunOpts {
        sz: std::mem::size_of::<sys::TestRunOpts>(),
        data_in: packet.as_ptr().cast(),
        data_out: std::ptr::null_mut(),
        data_size_in: size_in,
        data_size_out: 0,
        ctx_in: (&context as *const XdpMd).cast(),
        ctx_out: std::ptr::null_mut(),
        ctx_size_in: std::mem::size_of::<XdpMd>() as u32,
        ctx_size_out: 0,
        retval: 0,
        repeat: i32::try_from(repeat.max(1)).unwrap_or(i32::MAX),
        duration: 0,
        flags: LIVE_FRAMES,
        cpu: 0,
        batch_size: 0,
    };
    // SAFETY: every buffer in opts is live and sized as declared.
    let status = unsafe { sys::bpf_prog_test_run_opts(fd, &mut opts) };
    if status < 0 {
        return Err(RuntimeError::os("BPF_PROG_TEST_RUN (live frames)", -status));
    }
    if opts.duration == 0 {
        return Err(RuntimeError::NotSupported(
            "the kernel reported 0 ns for live frames".into(),
        ));
    }
    Ok(f64::from(opts.duration))
}
