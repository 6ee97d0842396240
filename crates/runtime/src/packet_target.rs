//! Where an STF script's packets go: through `BPF_PROG_TEST_RUN`
//! (`LoadedPipeline`, the kernel target) or onto real interfaces (`veth`).
//! `stf::run` plays a script against either.

use crate::digest::{DigestMessage, DigestReader};
use crate::error::Result;
use crate::map_source::MapSource;
use crate::pipeline::{LoadedPipeline, PacketOutcome};
use crate::test_ports::USER_IFINDEX_BASE;
use crate::user::host::Copy;
use crate::verdict::Verdict;
use crate::{test_run, tun};
use p4bpf_layout::{Hook, Pipeline};

pub trait PacketTarget: MapSource {
    fn description(&self) -> &Pipeline;
    /// Send `packet` in on `input_port`; what came out, and where.
    fn run_packet(&self, input_port: u32, packet: &[u8]) -> Result<PacketOutcome>;

    /// Every packet that came out (multicast copies too), where the target
    /// sees more than one; by default the one `run_packet` gives.
    fn run_packet_copies(&self, input_port: u32, packet: &[u8]) -> Result<Vec<PacketOutcome>> {
        self.run_packet(input_port, packet).map(|o| vec![o])
    }

    /// Whether [`PacketTarget::run_packet_copies`] sees every copy.
    fn sees_copies(&self) -> bool {
        false
    }

    /// Why `packet` takes another way into the target than its usual one,
    /// if it does (for the report).
    fn route_note(&self, _packet: &[u8]) -> Option<String> {
        None
    }

    /// The digests sent since the last call, where the target can read them.
    fn take_digests(&self) -> Result<Vec<DigestMessage>> {
        Err(crate::error::RuntimeError::NotSupported(
            "this target does not read digests: use --target kernel or user".into(),
        ))
    }
}

impl PacketTarget for LoadedPipeline {
    fn description(&self) -> &Pipeline {
        &self.description
    }

    fn run_packet(&self, input_port: u32, packet: &[u8]) -> Result<PacketOutcome> {
        LoadedPipeline::run_packet(self, input_port, packet)
    }

    /// The user-space target runs egress on each copy as the program
    /// makes it: the packet (when it leaves) and the copies egress passed.
    /// A packet an XDP broadcast sent leaves as its copies only.
    fn run_packet_copies(&self, input_port: u32, packet: &[u8]) -> Result<Vec<PacketOutcome>> {
        let outcome = LoadedPipeline::run_packet(self, input_port, packet)?;
        let Some(host) = self.user_host() else {
            return Ok(vec![outcome]);
        };
        let hook = self.description.hook;
        let copies: Vec<PacketOutcome> = host
            .take_copies()
            .into_iter()
            .filter_map(|copy| copy_outcome(hook, copy))
            .collect();
        if host.left_as_copies() {
            return Ok(copies);
        }
        if copies.is_empty() || outcome.verdict.delivers() {
            return Ok(std::iter::once(outcome).chain(copies).collect());
        }
        Ok(copies)
    }

    fn sees_copies(&self) -> bool {
        let d = &self.description;
        let copies = d.replication.is_some() || d.mirror_sessions.is_some();
        self.user_host().is_some() && copies
    }

    /// A kernel pipeline sends what test-run refuses through `tun`.
    fn route_note(&self, packet: &[u8]) -> Option<String> {
        let hook = self.description.hook;
        let refusal = test_run::refusal(hook, packet).filter(|_| self.user_host().is_none())?;
        Some(tun::note(hook, &refusal))
    }

    /// A fresh consumer each time: the ring keeps its read position.
    fn take_digests(&self) -> Result<Vec<DigestMessage>> {
        DigestReader::open(self)?.next_batch(0)
    }
}

/// A copy that egress let leave, as the port it was sent to sees it (a
/// made-up interface index below the user target's base has no port).
fn copy_outcome(hook: Hook, copy: Copy) -> Option<PacketOutcome> {
    let verdict = Verdict::from_retval(hook, copy.retval);
    (verdict == Verdict::Pass).then(|| PacketOutcome {
        verdict: Verdict::Redirect,
        port: copy.ifindex.checked_sub(USER_IFINDEX_BASE),
        packet: copy.packet,
        retval: copy.retval,
    })
}
