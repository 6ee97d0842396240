//! A TC program run just before the pipeline's on a TUN device, for
//! pipelines whose frames always leave by a port: it makes the frame's
//! first byte count as a link-layer header without changing the bytes
//! the pipeline sees, so a redirect carries the whole frame.
//!
//! Why: a TUN device's frames have no link-layer header (the mac and
//! network header offsets are equal), and `bpf_redirect` to a device
//! without one (`__bpf_redirect_no_mac`, net/core/filter.c) pulls every
//! byte before the network header, which are exactly the bytes the
//! pipeline adds in front with `bpf_skb_change_head`; to a device with
//! one (`__bpf_redirect_common`) it drops a frame whose mac header is
//! not before its network header. Growing the frame by one byte at the
//! front (which moves only the mac header) and moving the bytes back
//! over it leaves the same bytes with a one-byte link-layer header, and
//! with the TUN devices typed Ethernet, every redirect takes the path
//! that keeps it. The cost: a frame passed to the stack arrives without
//! that byte, so such a pass is reported as unreadable.

use crate::error::{Result, RuntimeError};
use crate::sys_net::BpfInsn;
use crate::veth::load_instructions;
use std::os::fd::OwnedFd;

/// `BPF_PROG_TYPE_SCHED_CLS`.
const PROG_TYPE_SCHED_CLS: i32 = 3;
/// Helper ids of `linux/bpf.h`.
const SKB_STORE_BYTES: i32 = 9;
const SKB_LOAD_BYTES: i32 = 26;
const SKB_CHANGE_TAIL: i32 = 38;
const SKB_CHANGE_HEAD: i32 = 43;
/// tcx's "run the next program"; `TC_ACT_SHOT` if a helper fails.
const TCX_NEXT: i32 = -1;
const TC_ACT_SHOT: i32 = 2;
/// The stack buffer the frame is copied through.
pub const MAX_FRAME: usize = 64;

/// The loaded program for a frame of `len` bytes (1 to [`MAX_FRAME`]).
pub fn program(len: usize) -> Result<OwnedFd> {
    let instructions = instructions(len)?;
    load_instructions(
        PROG_TYPE_SCHED_CLS,
        c"p4bpf_tun_shift",
        &instructions,
        "the TUN shift program",
    )
}

/// `change_head(1); load_bytes(1, buf, len); store_bytes(0, buf, len);
/// change_tail(len)`, stopping at the first helper that fails.
fn instructions(len: usize) -> Result<Vec<BpfInsn>> {
    let len = i32::try_from(len)
        .ok()
        .filter(|l| (1..=MAX_FRAME as i32).contains(l))
        .ok_or_else(|| RuntimeError::Value(format!("no shift program for a {len}-byte frame")))?;
    let buffer = -(MAX_FRAME as i32);
    let calls: [(i32, &[(u8, i32)]); 4] = [
        (SKB_CHANGE_HEAD, &[(2, 1), (3, 0)]),
        (SKB_LOAD_BYTES, &[(2, 1), (4, len)]),
        (SKB_STORE_BYTES, &[(2, 0), (4, len), (5, 0)]),
        (SKB_CHANGE_TAIL, &[(2, len), (3, 0)]),
    ];
    let mut code = vec![mov_register(6, 1)];
    for (index, (helper, arguments)) in calls.iter().enumerate() {
        code.push(mov_register(1, 6));
        if matches!(*helper, SKB_LOAD_BYTES | SKB_STORE_BYTES) {
            code.push(mov_register(3, 10));
            code.push(insn(0x07, 3, 0, buffer)); // r3 += buffer
        }
        code.extend(
            arguments
                .iter()
                .map(|(register, value)| mov_immediate(*register, *value)),
        );
        code.push(insn(0x85, 0, 0, *helper)); // call
        let is_last = index + 1 == calls.len();
        if !is_last {
            code.push(insn(0x55, 0, 0, 0)); // if r0 != 0 goto failed (patched below)
        }
    }
    let failed_jumps: Vec<usize> = (0..code.len())
        .filter(|&i| code.get(i).is_some_and(|c| c.code == 0x55))
        .collect();
    // r0 != 0 after the last helper fails too.
    code.push(insn(0x55, 0, 2, 0)); // if r0 != 0 goto +2
    code.push(mov_immediate(0, TCX_NEXT));
    code.push(insn(0x95, 0, 0, 0)); // exit
    let failed = code.len();
    code.push(mov_immediate(0, TC_ACT_SHOT));
    code.push(insn(0x95, 0, 0, 0)); // exit
    for at in failed_jumps {
        if let Some(jump) = code.get_mut(at) {
            jump.offset = i16::try_from(failed - at - 1).unwrap_or(i16::MAX);
        }
    }
    Ok(code)
}

fn insn(code: u8, destination: u8, offset: i16, immediate: i32) -> BpfInsn {
    BpfInsn {
        code,
        registers: destination,
        offset,
        immediate,
    }
}

/// `dst = src` (64-bit).
fn mov_register(destination: u8, source: u8) -> BpfInsn {
    BpfInsn {
        code: 0xbf,
        registers: (source << 4) | destination,
        offset: 0,
        immediate: 0,
    }
}

/// `dst = value` (64-bit, sign-extended).
fn mov_immediate(destination: u8, value: i32) -> BpfInsn {
    insn(0xb7, destination, 0, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failed_helper_jumps_to_the_drop() {
        let code = instructions(9).unwrap_or_default();
        let drop_at = code.len() - 2;
        assert_eq!(code.get(drop_at).map(|i| i.immediate), Some(TC_ACT_SHOT));
        let jumps: Vec<usize> = (0..code.len()).filter(|&i| code[i].code == 0x55).collect();
        assert_eq!(jumps.len(), 4);
        for at in jumps {
            let target = at + 1 + code[at].offset as usize;
            assert_eq!(target, drop_at, "jump at {at}");
        }
        assert_eq!(code.iter().filter(|i| i.code == 0x85).count(), 4);
        assert!(instructions(0).is_err() && instructions(MAX_FRAME + 1).is_err());
    }
}
