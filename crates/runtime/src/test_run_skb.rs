//! `BPF_PROG_TEST_RUN` of a TC program with its socket buffer's context
//! in and out: what the program left in the fields the kernel hands back
//! (the priority the packet is queued by, which no packet socket shows).

use crate::error::{Result, RuntimeError};
use crate::sys;

/// `sizeof(struct __sk_buff)` in `linux/bpf.h` (Linux 6.x).
const SKB_CONTEXT_SIZE: usize = 192;
/// `offsetof(struct __sk_buff, priority)`.
const PRIORITY_OFFSET: usize = 32;

/// What one run of a TC program left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkbRun {
    /// The program's verdict.
    pub retval: u32,
    /// The packet's `skb->priority` after the program.
    pub priority: u32,
}

/// Runs TC program `fd` once on `packet`, whose socket buffer comes in
/// with `priority`.
pub fn run_with_priority(fd: i32, packet: &[u8], priority: u32) -> Result<SkbRun> {
    crate::test_run::check_length(p4bpf_layout::Hook::Tc, packet)?;
    let size_in = u32::try_from(packet.len())
        .map_err(|_| RuntimeError::Value("packet is too long".into()))?;
    let mut context = [0u8; SKB_CONTEXT_SIZE];
    if let Some(slot) = context.get_mut(PRIORITY_OFFSET..PRIORITY_OFFSET + 4) {
        slot.copy_from_slice(&priority.to_ne_bytes());
    }
    let mut context_out = [0u8; SKB_CONTEXT_SIZE];
    let mut out = vec![0u8; packet.len() + 4096];
    let mut opts = sys::TestRunOpts {
        sz: std::mem::size_of::<sys::TestRunOpts>(),
        data_in: packet.as_ptr().cast(),
        data_out: out.as_mut_ptr().cast(),
        data_size_in: size_in,
        data_size_out: u32::try_from(out.len()).unwrap_or(u32::MAX),
        ctx_in: context.as_ptr().cast(),
        ctx_out: context_out.as_mut_ptr().cast(),
        ctx_size_in: SKB_CONTEXT_SIZE as u32,
        ctx_size_out: SKB_CONTEXT_SIZE as u32,
        retval: 0,
        repeat: 1,
        duration: 0,
        flags: 0,
        cpu: 0,
        batch_size: 0,
    };
    // SAFETY: every buffer in opts is live and sized as declared.
    let status = unsafe { sys::bpf_prog_test_run_opts(fd, &mut opts) };
    if status < 0 {
        return Err(RuntimeError::os(
            "BPF_PROG_TEST_RUN with a context",
            -status,
        ));
    }
    Ok(SkbRun {
        retval: opts.retval,
        priority: crate::map::u32_at(&context_out, PRIORITY_OFFSET),
    })
}
