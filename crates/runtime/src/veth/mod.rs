//! The veth test target: an STF script played on real interfaces. In a
//! private network namespace (see `netns`), each STF port P gets a veth
//! pair: `pP`, where the pipeline is attached at XDP, and `tP`, where the
//! test injects frames with a packet socket. Every port is watched on both
//! sides: a frame arriving at `tP` left the pipeline by port P (XDP_TX or
//! XDP_REDIRECT), a frame received by `pP`'s stack was passed (XDP_PASS);
//! nothing anywhere within the wait is a drop, and a frame on two ports is
//! an error. Port P is interface index P where it can be (2 to 999; 0 and
//! 1 cannot, 1 is the loopback), so a program that redirects to the port
//! number reaches the right interface (and a program that redirects
//! through its devmap finds port P mapped to `pP` there). Each `tP` runs an XDP_PASS program:
//! a veth delivers XDP_TX and XDP_REDIRECT frames to its peer only when the
//! peer has an XDP program (GRO alone was not enough for XDP_TX here).
//! A TC pipeline is attached at tcx ingress of each `pP` (and its egress
//! program, if it multicasts, at tcx egress); there `pP`'s side is not
//! watched, since a packet socket sees a frame before tc ingress does, so
//! a packet passed to the stack reads as dropped. Every frame that leaves
//! is seen: `run_packet_copies` gives them all (multicast copies).

pub mod netns;
pub mod socket;

use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::packet_target::PacketTarget;
use crate::pipeline::{LoadedPipeline, PacketOutcome};
use crate::ports::ifindex;
use crate::stf::{self, Command, Line, Outcome};
use crate::sys_net::{self, BpfInsn};
use crate::verdict::Verdict;
use crate::{sys, sys_ops};
use p4bpf_layout::{Hook, Pipeline};
use socket::PacketSocket;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

/// How long a packet may take to come out before it counts as dropped,
/// and how long to keep watching for a second copy after the first.
const FIRST_FRAME_MS: i32 = 200;
const SETTLE_MS: i32 = 20;
/// Interface indexes of the tester's sides start here.
const OUTER_INDEX_BASE: u32 = 1000;

struct Port {
    /// Frames that left the pipeline by this port.
    outer: PacketSocket,
    /// Frames the pipeline passed to this port's stack (XDP only).
    inner: Option<PacketSocket>,
}

struct VethTarget {
    pipeline: LoadedPipeline,
    ports: BTreeMap<u32, Port>,
    /// XDP attachments, detached when dropped.
    _links: Vec<OwnedFd>,
}

/// Play `script` (from `file`) against the object `image` on veth pairs.
/// Runs on a thread of its own, whose private namespace dies with it.
pub fn run_stf(image: Vec<u8>, file: &Path, script: &[Line]) -> Result<Outcome> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                netns::enter_fresh()?;
                let pipeline = LoadedPipeline::from_image(image)?;
                let target = VethTarget::new(pipeline, &stf_ports(script))?;
                Ok(stf::run(&target, file, script))
            })
            .join()
            .unwrap_or_else(|_| {
                Err(RuntimeError::BadObject(
                    "the veth test thread failed".into(),
                ))
            })
    })
}

/// Whether `script` asks `description`'s program for packet copies
/// (multicast groups, clone or mirror sessions): one
/// `BPF_PROG_TEST_RUN` returns one packet, so only live ports show them
/// all.
pub fn needs_live_ports(description: &Pipeline, script: &[Line]) -> bool {
    (description.replication.is_some() || description.mirror_sessions.is_some())
        && script
            .iter()
            .any(|line| matches!(line.command, Command::Replication(_)))
}

/// Every port a script sends to or expects on.
fn stf_ports(script: &[Line]) -> Vec<u32> {
    let mut ports: Vec<u32> = script
        .iter()
        .filter_map(|line| match &line.command {
            Command::Packet { port, .. } | Command::Expect { port, .. } => Some(*port),
            _ => None,
        })
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

impl VethTarget {
    fn new(pipeline: LoadedPipeline, stf_ports: &[u32]) -> Result<VethTarget> {
        let program = pipeline.program_fd()?;
        let pass = pass_program()?;
        let mut ports = BTreeMap::new();
        let mut links = Vec::new();
        // Ports with a fixed interface index first, so the kernel's own
        // picks for the others cannot take one of those indexes.
        let fixed = |port: &u32| (2..OUTER_INDEX_BASE).contains(port);
        let (mut order, others): (Vec<u32>, Vec<u32>) = stf_ports.iter().partition(|p| fixed(p));
        order.extend(others);
        for port in order {
            let (inner, outer) = (format!("p{port}"), format!("t{port}"));
            let indexes = fixed(&port).then_some((port, OUTER_INDEX_BASE + port));
            netns::veth_pair(&inner, &outer, indexes)?;
            let inner_index = ifindex(&inner)?;
            let outer_index = ifindex(&outer)?;
            let hook = pipeline.description.hook;
            match hook {
                Hook::Xdp => links.push(attach_xdp(program, inner_index, &inner)?),
                Hook::Tc => {
                    links.push(attach_tcx(
                        program,
                        inner_index,
                        sys_ops::ATTACH_TCX_INGRESS,
                    )?);
                    if let Some(egress) = pipeline.egress_program_fd()? {
                        links.push(attach_tcx(egress, inner_index, sys_ops::ATTACH_TCX_EGRESS)?);
                    }
                }
            }
            links.push(attach_xdp(pass.as_raw_fd(), outer_index, &outer)?);
            // A program that redirects through a devmap finds port P there.
            if let Some(port_map) = &pipeline.description.port_map {
                let devmap = pipeline.map(port_map)?;
                devmap.write(
                    &port.to_ne_bytes(),
                    &inner_index.to_ne_bytes(),
                    Write::Replace,
                )?;
            }
            // And one that reads its ingress port sees P, not the index.
            if let Some(ingress) = &pipeline.description.ingress_port_map {
                pipeline.map(ingress)?.write(
                    &inner_index.to_ne_bytes(),
                    &port.to_ne_bytes(),
                    Write::Replace,
                )?;
            }
            ports.insert(
                port,
                Port {
                    outer: PacketSocket::bind(outer_index, &outer)?,
                    inner: match hook {
                        Hook::Xdp => Some(PacketSocket::bind(inner_index, &inner)?),
                        Hook::Tc => None,
                    },
                },
            );
        }
        Ok(VethTarget {
            pipeline,
            ports,
            _links: links,
        })
    }

    /// Frames that came out, as (port, passed to the stack, bytes).
    fn collect(&self) -> Result<Vec<(u32, bool, Vec<u8>)>> {
        let sockets: Vec<&PacketSocket> = self
            .ports
            .values()
            .flat_map(|p| std::iter::once(&p.outer).chain(&p.inner))
            .collect();
        let mut frames = Vec::new();
        let mut wait = FIRST_FRAME_MS;
        while socket::wait_any(&sockets, wait)? {
            for (port, sides) in &self.ports {
                let sides = std::iter::once((false, &sides.outer))
                    .chain(sides.inner.as_ref().map(|inner| (true, inner)));
                for (passed, side) in sides {
                    while let Some(frame) = side.receive()? {
                        if !frame.outgoing {
                            frames.push((*port, passed, frame.bytes));
                        }
                    }
                }
            }
            if !frames.is_empty() {
                wait = SETTLE_MS;
            }
        }
        Ok(frames)
    }
}

/// A loaded XDP program that passes every packet (`r0 = XDP_PASS; exit`).
fn pass_program() -> Result<OwnedFd> {
    let instructions = [
        BpfInsn {
            code: 0xb7,
            registers: 0,
            offset: 0,
            immediate: 2,
        },
        BpfInsn {
            code: 0x95,
            registers: 0,
            offset: 0,
            immediate: 0,
        },
    ];
    load_instructions(
        sys::PROG_TYPE_XDP,
        c"p4bpf_pass",
        &instructions,
        "an XDP_PASS program",
    )
}

/// Loads a program of hand-assembled `instructions` (GPL, no options):
/// the small helper programs the runtime attaches itself. `what` names it
/// in an error.
pub(crate) fn load_instructions(
    prog_type: i32,
    name: &std::ffi::CStr,
    instructions: &[BpfInsn],
    what: &str,
) -> Result<OwnedFd> {
    // SAFETY: the pointers and the count come from live values; the
    // kernel verifies the instructions.
    let fd = unsafe {
        sys_net::bpf_prog_load(
            prog_type,
            name.as_ptr(),
            c"GPL".as_ptr(),
            instructions.as_ptr(),
            instructions.len(),
            std::ptr::null(),
        )
    };
    if fd < 0 {
        return Err(RuntimeError::os(format!("loading {what}"), -fd));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `program` at tcx ingress or egress (`attach_type`) of interface `index`.
pub(crate) fn attach_tcx(
    program: i32,
    index: u32,
    attach_type: std::ffi::c_int,
) -> Result<OwnedFd> {
    let options = sys_ops::LinkCreateOpts {
        sz: std::mem::size_of::<sys_ops::LinkCreateOpts>(),
        flags: 0,
        _pad: 0,
    };
    // SAFETY: valid program descriptor; options sized by `sz`.
    let fd = unsafe { sys_ops::bpf_link_create(program, index as i32, attach_type, &options) };
    if fd < 0 {
        return Err(RuntimeError::os(
            format!("attaching at tcx to interface {index}"),
            -fd,
        ));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn attach_xdp(program: i32, index: u32, interface: &str) -> Result<OwnedFd> {
    attach_xdp_in_mode(program, index, interface, sys_ops::XDP_FLAGS_DRV_MODE)
}

/// `program` at XDP of interface `index`, in the mode `flags` choose.
pub(crate) fn attach_xdp_in_mode(
    program: i32,
    index: u32,
    interface: &str,
    flags: u32,
) -> Result<OwnedFd> {
    let options = sys_ops::LinkCreateOpts {
        sz: std::mem::size_of::<sys_ops::LinkCreateOpts>(),
        flags,
        _pad: 0,
    };
    // SAFETY: valid program descriptor; options sized by `sz`.
    let fd =
        unsafe { sys_ops::bpf_link_create(program, index as i32, sys_ops::ATTACH_XDP, &options) };
    if fd < 0 {
        return Err(RuntimeError::os(
            format!("attaching XDP to `{interface}`"),
            -fd,
        ));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

impl MapSource for VethTarget {
    fn map(&self, name: &str) -> Result<Map> {
        self.pipeline.map(name)
    }

    fn copy_program(&self) -> Result<Option<std::os::fd::OwnedFd>> {
        self.pipeline.copy_program()
    }
}

impl PacketTarget for VethTarget {
    fn description(&self) -> &Pipeline {
        &self.pipeline.description
    }

    fn run_packet(&self, input_port: u32, packet: &[u8]) -> Result<PacketOutcome> {
        let mut frames = self.send(input_port, packet)?;
        match frames.len() {
            0 => Ok(dropped()),
            1 => Ok(outcome(input_port, frames.remove(0))),
            _ => {
                let ports: Vec<String> = frames.iter().map(|(p, _, _)| p.to_string()).collect();
                Err(RuntimeError::Value(format!(
                    "the packet came out {} times, on ports {}",
                    frames.len(),
                    ports.join(", ")
                )))
            }
        }
    }

    fn run_packet_copies(&self, input_port: u32, packet: &[u8]) -> Result<Vec<PacketOutcome>> {
        let frames = self.send(input_port, packet)?;
        if frames.is_empty() {
            return Ok(vec![dropped()]);
        }
        Ok(frames.into_iter().map(|f| outcome(input_port, f)).collect())
    }

    fn sees_copies(&self) -> bool {
        true
    }
}

/// What a script sees of a packet nothing came out for.
fn dropped() -> PacketOutcome {
    PacketOutcome {
        verdict: Verdict::Drop,
        port: None,
        packet: Vec::new(),
        retval: 1,
    }
}

/// What a script sees of a frame that came out on `out_port`.
fn outcome(input_port: u32, (out_port, passed, bytes): (u32, bool, Vec<u8>)) -> PacketOutcome {
    let verdict = match (passed, out_port == input_port) {
        (true, _) => Verdict::Pass,
        (false, true) => Verdict::Transmit,
        (false, false) => Verdict::Redirect,
    };
    PacketOutcome {
        verdict,
        port: Some(out_port),
        packet: bytes,
        retval: 0,
    }
}

impl VethTarget {
    /// Sends `packet` in on `input_port`; the frames that came out.
    fn send(&self, input_port: u32, packet: &[u8]) -> Result<Vec<(u32, bool, Vec<u8>)>> {
        let port = self
            .ports
            .get(&input_port)
            .ok_or_else(|| RuntimeError::Value(format!("port {input_port} has no interface")))?;
        // Whatever is still in flight belongs to no packet of the script.
        self.collect_nothing_waiting()?;
        port.outer.send(packet)?;
        self.collect()
    }

    fn collect_nothing_waiting(&self) -> Result<()> {
        for sides in self.ports.values() {
            for side in std::iter::once(&sides.outer).chain(&sides.inner) {
                while side.receive()?.is_some() {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_come_from_packets_and_expects_once_each() {
        let text = "packet 3 00\nexpect 7 00\npacket 3 01\nexpect 0 00\nadd t k:1 a()\n";
        let script = stf::parse(Path::new("x.stf"), text).unwrap_or_default();
        assert_eq!(stf_ports(&script), [0, 3, 7]);
    }
}
