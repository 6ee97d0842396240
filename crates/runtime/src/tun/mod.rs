//! Frames `BPF_PROG_TEST_RUN` refuses (shorter than an Ethernet header;
//! at TC, announcing IPv4 or IPv6 without the whole header) run through a
//! real kernel hook instead: the same loaded program, with the same maps,
//! attached to a TUN device in a private network namespace. A TUN device
//! is an L3 interface, so the kernel asks no Ethernet header of what is
//! written to it, and its hooks see the frame from its first byte.
//!
//! Per frame, on a thread of its own (its namespace dies with it, even on
//! an error): an input device `p4in<pid>` carries the program (tcx ingress
//! at TC, generic-mode XDP at XDP, the mode that runs on any interface);
//! an output device `p4out<pid>` is where every port of the ports map
//! points meanwhile. The frame is written to the input device's descriptor
//! and where it comes out is the verdict, as `BPF_PROG_TEST_RUN` would
//! have returned it: read back from the output device, a redirect; from
//! the input device, sent back (XDP_TX, or TC's redirect to the receiving
//! interface); received by a packet socket on the input device, passed to
//! the stack; nowhere, dropped (XDP_ABORTED reads as a drop too). The
//! caller reads the output record as after a test run, and the ports map
//! gets its entries back after the thread ends.
//!
//! What the kernel still refuses on this route:
//! - XDP: `bpf_xdp_adjust_head` leaves no frame shorter than 14 bytes
//!   (net/core/filter.c), so a program that resizes such a frame drops it.
//! - TC: a redirect to a device with no link-layer header pulls the bytes
//!   before the network header, which are the bytes a program adds in
//!   front. V1model pipelines, whose packets never go to the stack, run
//!   behind [`shift`], which keeps them; other architectures pass packets
//!   to the stack, which the shift would cut, so there a frame grown at
//!   the front comes out without the added bytes.

pub mod device;
mod shift;

use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::pipeline::LoadedPipeline;
use crate::test_ports::TEST_PORTS;
use crate::test_run::Refusal;
use crate::veth::socket::{self, PacketSocket};
use crate::veth::{attach_tcx, attach_xdp_in_mode, netns};
use crate::{sys, sys_ops};
use device::Tun;
use p4bpf_layout::{Architecture, Hook};
use std::os::fd::{AsRawFd, OwnedFd};

/// The protocol frames arrive with: IEEE's local experimental EtherType,
/// which no kernel handler takes, so a passed frame ends at our socket.
const PROTOCOL: u16 = 0x88b5;
/// How long a frame may take to come out before it counts as dropped
/// (the kernel runs the hook inside the write; this is slack), and how
/// long to watch for a second copy after the first.
const FIRST_FRAME_MS: i32 = 100;
const SETTLE_MS: i32 = 10;

/// What the run needs of the pipeline: descriptors, so it crosses to the
/// namespace's thread.
struct Hookup {
    hook: Hook,
    program: i32,
    egress: Option<i32>,
    /// The ports map's descriptor and the ports it maps.
    ports: Option<(i32, Vec<u32>)>,
    /// Whether the frame runs behind [`shift`] (TC only).
    shifted: bool,
}

/// Where a frame came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    /// Received by the input device's stack.
    Passed,
    /// Sent by the input device.
    SentBack,
    /// Sent by the output device (a port of the ports map).
    SentOut,
}

/// What the report says of a frame that takes this way.
pub fn note(hook: Hook, refusal: &Refusal) -> String {
    let place = match hook {
        Hook::Xdp => {
            "XDP (generic mode; bpf_xdp_adjust_head leaves no frame shorter than 14 bytes, so resizing one drops it)"
        }
        Hook::Tc => "TC ingress",
    };
    format!("{refusal}, which BPF_PROG_TEST_RUN refuses: sent through a TUN device at {place}")
}

/// Run `packet` through `pipeline`'s program at its hook on a TUN device:
/// the return value the hook's verdict stands for, and the packet as it
/// came out (empty when dropped).
pub fn run(pipeline: &LoadedPipeline, packet: &[u8]) -> Result<(u32, Vec<u8>)> {
    if packet.is_empty() {
        return Err(RuntimeError::NotSupported(
            "an empty frame: the kernel runs the program on it but redirects no zero-length packet, so no route shows where it goes".into(),
        ));
    }
    let saved = match &pipeline.description.port_map {
        Some(name) => {
            let map = pipeline.map(name)?;
            let entries = mapped_ports(&map)?;
            Some((map, entries))
        }
        None => None,
    };
    let hookup = hookup(pipeline, packet, saved.as_ref())?;
    let result = std::thread::scope(|scope| {
        scope
            .spawn(|| in_fresh_namespace(&hookup, packet))
            .join()
            .unwrap_or_else(|_| Err(RuntimeError::BadObject("the TUN test thread failed".into())))
    });
    if let Some((map, entries)) = &saved {
        for (port, ifindex) in entries {
            map.write(&port.to_ne_bytes(), &ifindex.to_ne_bytes(), Write::Replace)?;
        }
    }
    result.map_err(|e| {
        RuntimeError::NotSupported(format!(
            "this {}-byte packet needs a TUN device (BPF_PROG_TEST_RUN refuses it), and that failed: {e}",
            packet.len()
        ))
    })
}

/// What the namespace's thread needs to run `packet` on `pipeline`,
/// whose ports map has the interfaces `saved`.
fn hookup(
    pipeline: &LoadedPipeline,
    packet: &[u8],
    saved: Option<&(Map, Vec<(u32, u32)>)>,
) -> Result<Hookup> {
    let hook = pipeline.description.hook;
    Ok(Hookup {
        hook,
        program: pipeline.program_fd()?,
        egress: pipeline.egress_program_fd()?,
        ports: match saved {
            Some((map, entries)) => Some((map.fd()?, entries.iter().map(|(p, _)| *p).collect())),
            None => None,
        },
        shifted: hook == Hook::Tc
            && pipeline.description.architecture == Architecture::V1Model
            && (1..=shift::MAX_FRAME).contains(&packet.len()),
    })
}

/// The test ports the ports map has an interface for, with its index.
fn mapped_ports(map: &Map) -> Result<Vec<(u32, u32)>> {
    let mut mapped = Vec::new();
    for port in 0..TEST_PORTS {
        match map.read(&port.to_ne_bytes()) {
            Ok(values) => {
                let ifindex = values.first().map_or(0, |v| crate::map::u32_at(v, 0));
                mapped.push((port, ifindex));
            }
            Err(RuntimeError::KeyNotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(mapped)
}

fn in_fresh_namespace(hookup: &Hookup, packet: &[u8]) -> Result<(u32, Vec<u8>)> {
    netns::enter_fresh()?;
    let pid = std::process::id();
    let (input_name, output_name) = (format!("p4in{pid}"), format!("p4out{pid}"));
    let input = Tun::create(&input_name, hookup.shifted)?;
    let output = Tun::create(&output_name, hookup.shifted)?;
    if let Some((fd, ports)) = &hookup.ports {
        // Written from inside the namespace: a devmap checks the index here.
        for port in ports {
            point_port(*fd, *port, output.ifindex)?;
        }
    }
    let passed = match hookup.hook {
        // A protocol socket sees frames after tc ingress, ETH_P_ALL before.
        Hook::Tc => PacketSocket::bind_protocol(input.ifindex, &input_name, PROTOCOL.to_be())?,
        // Generic XDP runs before every socket.
        Hook::Xdp => PacketSocket::bind(input.ifindex, &input_name)?,
    };
    let shift = match hookup.shifted {
        true => Some(shift::program(packet.len())?),
        false => None,
    };
    let _links = attach(hookup, shift.as_ref(), &input, &output)?;
    input.send(PROTOCOL, packet)?;
    let mut exits = collect(&input, &output, &passed)?;
    if hookup.shifted && exits.iter().any(|(exit, _)| *exit == Exit::Passed) {
        return Err(RuntimeError::NotSupported(
            "the program passed the frame to the stack, which gets it without its first byte on this route".into(),
        ));
    }
    match exits.len() {
        0 => Ok((retval(hookup.hook, None), Vec::new())),
        1 => {
            let (exit, bytes) = exits.remove(0);
            Ok((retval(hookup.hook, Some(exit)), bytes))
        }
        count => Err(RuntimeError::Value(format!(
            "the packet came out {count} times ({:?})",
            exits.iter().map(|(exit, _)| *exit).collect::<Vec<_>>()
        ))),
    }
}

/// Send P4 port `port` to interface `ifindex` in the ports map `fd`.
fn point_port(fd: i32, port: u32, ifindex: u32) -> Result<()> {
    let (key, value) = (port.to_ne_bytes(), ifindex.to_ne_bytes());
    // SAFETY: 4-byte key and value, as every ports map has.
    let status =
        unsafe { sys::bpf_map_update_elem(fd, key.as_ptr().cast(), value.as_ptr().cast(), 0) };
    if status != 0 {
        return Err(RuntimeError::os(
            "pointing the ports map at a TUN device",
            -status,
        ));
    }
    Ok(())
}

/// The program at its hook of `input`, after `shift` if given (tcx runs
/// programs in the order they were attached), and an egress program, for
/// multicast copies, at tcx egress of both devices.
fn attach(
    hookup: &Hookup,
    shift: Option<&OwnedFd>,
    input: &Tun,
    output: &Tun,
) -> Result<Vec<OwnedFd>> {
    let mut links = Vec::new();
    if let Some(shift) = shift {
        links.push(attach_tcx(
            shift.as_raw_fd(),
            input.ifindex,
            sys_ops::ATTACH_TCX_INGRESS,
        )?);
    }
    match hookup.hook {
        Hook::Xdp => links.push(attach_xdp_in_mode(
            hookup.program,
            input.ifindex,
            "the input TUN device",
            sys_ops::XDP_FLAGS_SKB_MODE,
        )?),
        Hook::Tc => {
            links.push(attach_tcx(
                hookup.program,
                input.ifindex,
                sys_ops::ATTACH_TCX_INGRESS,
            )?);
            if let Some(egress) = hookup.egress {
                for device in [input, output] {
                    links.push(attach_tcx(
                        egress,
                        device.ifindex,
                        sys_ops::ATTACH_TCX_EGRESS,
                    )?);
                }
            }
        }
    }
    Ok(links)
}

/// Every frame that came out, and where.
fn collect(input: &Tun, output: &Tun, passed: &PacketSocket) -> Result<Vec<(Exit, Vec<u8>)>> {
    let fds = [input.raw_fd(), output.raw_fd(), passed.raw_fd()];
    let mut exits = Vec::new();
    let mut wait = FIRST_FRAME_MS;
    while socket::wait_any_fd(&fds, wait)? {
        while let Some(bytes) = input.receive()? {
            exits.push((Exit::SentBack, bytes));
        }
        while let Some(bytes) = output.receive()? {
            exits.push((Exit::SentOut, bytes));
        }
        while let Some(frame) = passed.receive()? {
            if !frame.outgoing {
                exits.push((Exit::Passed, frame.bytes));
            }
        }
        if !exits.is_empty() {
            wait = SETTLE_MS;
        }
    }
    Ok(exits)
}

/// The hook's return value for a frame that came out at `exit` (nowhere:
/// dropped).
fn retval(hook: Hook, exit: Option<Exit>) -> u32 {
    const XDP_DROP: u32 = 1;
    const XDP_PASS: u32 = 2;
    const XDP_TX: u32 = 3;
    const XDP_REDIRECT: u32 = 4;
    const TC_ACT_OK: u32 = 0;
    const TC_ACT_SHOT: u32 = 2;
    const TC_ACT_REDIRECT: u32 = 7;
    match (hook, exit) {
        (Hook::Xdp, None) => XDP_DROP,
        (Hook::Xdp, Some(Exit::Passed)) => XDP_PASS,
        (Hook::Xdp, Some(Exit::SentBack)) => XDP_TX,
        (Hook::Xdp, Some(Exit::SentOut)) => XDP_REDIRECT,
        (Hook::Tc, None) => TC_ACT_SHOT,
        (Hook::Tc, Some(Exit::Passed)) => TC_ACT_OK,
        (Hook::Tc, Some(Exit::SentBack | Exit::SentOut)) => TC_ACT_REDIRECT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;

    #[test]
    fn exits_read_as_the_verdicts_test_run_would_give() {
        let verdict = |hook, exit| Verdict::from_retval(hook, retval(hook, exit));
        assert_eq!(verdict(Hook::Xdp, None), Verdict::Drop);
        assert_eq!(verdict(Hook::Xdp, Some(Exit::Passed)), Verdict::Pass);
        assert_eq!(verdict(Hook::Xdp, Some(Exit::SentBack)), Verdict::Transmit);
        assert_eq!(verdict(Hook::Xdp, Some(Exit::SentOut)), Verdict::Redirect);
        assert_eq!(verdict(Hook::Tc, None), Verdict::Drop);
        assert_eq!(verdict(Hook::Tc, Some(Exit::Passed)), Verdict::Pass);
        assert_eq!(verdict(Hook::Tc, Some(Exit::SentBack)), Verdict::Redirect);
        assert_eq!(verdict(Hook::Tc, Some(Exit::SentOut)), Verdict::Redirect);
    }
}
