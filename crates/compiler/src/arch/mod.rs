//! The architecture layer: what each P4 architecture the compiler knows
//! is made of, as data the lowering follows. One module per architecture;
//! a new architecture is one new module and one line in `ALL`.
//!
//! An [`Architecture`] says which blocks its package takes, in order, and
//! what each block's parameters are bound to ([`Param`]): the packet, or a
//! variable shared by every block that names it. Its metadata are named
//! by meaning ([`Intrinsics`]: ingress port, output port, verdict), as
//! places in those variables, not by position. Its extern functions say
//! what each call means ([`Function`]). Its pipeline is a list of
//! [`Step`]s over the blocks; architectures with several pipelines
//! (PSA's ingress and egress) list a parser, control and deparser for
//! each, each block keeping its own names in the C.

mod ebpf_model;
pub(crate) mod pna;
mod psa;
mod ubpf_model;
mod v1model;
mod xdp_model;

use crate::ir::{Arch, Builtin, Outcome, SkbField};

/// One architecture: its package, blocks, metadata, externs and steps.
pub struct Architecture {
    pub arch: Arch,
    /// The package `main` instantiates (`xdp`).
    pub package: &'static str,
    /// The package's blocks, in the order `main` passes them.
    pub blocks: &'static [Block],
    /// The steps a packet goes through, as indexes into `blocks`.
    pub steps: &'static [Step],
    pub intrinsics: Intrinsics,
    /// Extern functions the architecture declares, and what they mean.
    pub functions: &'static [(&'static str, Function)],
    /// Extern object types the architecture declares, and what they are.
    pub objects: &'static [(&'static str, Object)],
    /// C that extern files written for this architecture's p4c back end
    /// expect from its headers, printed before them.
    pub extern_prelude: &'static str,
}

/// What an instance of an architecture's extern object type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// `CounterArray(size, sparse)`: `increment(index)`, `add(index, n)`.
    CounterArray,
    /// `Register<T, S>(size)`: `read(index)`, `write(index, value)`.
    Register,
    /// PSA's `Counter<W, S>(size, PSA_CounterType_t)`: `count(index)`.
    PsaCounter,
    /// v1model's `register<T>(size)` or `register<T, I>(size)`:
    /// `read(out value, index)`, `write(index, value)`.
    RegisterReadOut,
    /// v1model's `counter(size, CounterType)`: `count(index)` adds a
    /// packet or its bytes.
    TypedCounter,
    /// PSA's and PNA's `InternetChecksum()`: a per-packet ones'
    /// complement sum.
    InternetChecksum,
    /// PSA's and PNA's `Meter<S>(size, type)`: `execute(index[, colour])`;
    /// v1model's `meter(size, type)`: `execute_meter(index, out colour)`.
    Meter,
    /// PSA's and PNA's `Random<T>(min, max)`: `read()`.
    Random,
    /// PSA's and PNA's `Hash<O>(algorithm)`: `get_hash(data)`,
    /// `get_hash(base, data, max)`.
    Hash,
    /// PNA's `Checksum<W>(algorithm)`: a CRC over every `update` since
    /// the last `clear()`, `get()`.
    CrcChecksum,
    /// v1model's `action_profile(size)`, PSA's and PNA's
    /// `ActionProfile(size)`: a table's `implementation`.
    ActionProfile,
    /// v1model's `action_selector(algorithm, size, width)`, PSA's and
    /// PNA's `ActionSelector(algorithm, size, width)`.
    ActionSelector,
    /// A counter of table entries: PSA's and PNA's `DirectCounter<W>(type)`
    /// (a hit counts when its action calls `count()`), v1model's
    /// `direct_counter(type)` (`every_hit`: every hit counts).
    DirectCounter { every_hit: bool },
    /// A meter of table entries: PSA's and PNA's `DirectMeter(type)`
    /// (`execute([colour])`), v1model's `direct_meter<T>(type)`
    /// (`read(out colour)`).
    DirectMeter { every_hit: bool },
    /// PSA's and PNA's `Digest<T>()`: `pack(data)` sends `data` to the
    /// control plane.
    Digest,
    /// PNA's `ipsec_accelerator`, on a target without one.
    IpsecAccelerator,
    /// A type p4bpf refuses, with why.
    Unsupported(&'static str),
}

/// A block of the package.
pub struct Block {
    /// The role's name in the architecture (`parser`, `pipe`).
    pub role: &'static str,
    pub kind: BlockKind,
    /// What each parameter is bound to, in order.
    pub params: &'static [Param],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Parser,
    Control,
    /// A control whose `packet_out` emits the outgoing headers.
    Deparser,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// `packet_in` (parsers) or `packet_out` (deparsers).
    Packet,
    /// The headers struct every block shares (the package's `H`).
    Headers,
    /// A variable shared by every block that names it, typed by the
    /// first block that declares it.
    Shared(&'static str),
}

/// A step of the pipeline over `blocks[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Parse(usize),
    /// A parser whose `reject` stores the error in the place and lets
    /// the next step run (BMv2).
    ParseKeepingError(usize, Place),
    Control(usize),
    Deparse(usize),
    /// Drops the packet now if the verdict says so, else gives the output
    /// port the verdict's port (v1model between ingress and egress).
    Checkpoint,
}

/// A place in a shared variable: the variable, then a field if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub var: &'static str,
    pub field: Option<&'static str>,
}

impl Place {
    pub const fn field(var: &'static str, field: &'static str) -> Place {
        Place {
            var,
            field: Some(field),
        }
    }
    pub const fn var(var: &'static str) -> Place {
        Place { var, field: None }
    }
}

/// The architecture's metadata by meaning.
pub struct Intrinsics {
    pub ingress_port: Option<Place>,
    pub packet_length: Option<Place>,
    pub output_port: Option<Place>,
    pub verdict: Verdict,
    /// What a parser's `reject` does with the packet, unchanged.
    pub on_reject: Outcome,
    /// Codes outputs hold before the first step (`output_action = PASS`).
    pub defaults: &'static [(Place, u32)],
}

/// How the packet's fate is read after the last step.
pub enum Verdict {
    /// A boolean: true passes, false drops.
    Accept(Place),
    /// A code (an enum's member index) selecting an outcome.
    Code {
        place: Place,
        outcomes: &'static [(u32, Outcome)],
    },
    /// A port: `drop` drops, any other value sends the packet out of the
    /// output port.
    Port { place: Place, drop: u32 },
}

/// What a call of an architecture's extern function means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// A target function returning `bit<width>`.
    Builtin(Builtin, u32),
    /// Stores `code` into `place` (`mark_to_drop()`).
    SetCode(Place, u32),
    /// `hash(out result, algorithm, { fields })`: the algorithm's hash of
    /// the fields into `result`.
    Hash(Builtin),
    /// `truncate(len)`: the packet leaves with at most `len` bytes (the
    /// last call wins; the cut happens after the last step).
    Truncate,
    /// `send_to_port(p)`: `p` into `port` and `code` into `verdict`, or,
    /// when `p` is `host.0`, the code `host.1`.
    SendToPort {
        verdict: Place,
        port: Place,
        code: u32,
        host: (u32, u32),
    },
    /// `f(c, a, b)`: `a` when `c` is true or equals `first`, else `b`
    /// (PNA's `SelectByDirection`).
    Select { first: u32 },
    /// `f(p)`: whether `p` is `port` (`equal`) or is not.
    PortIs { port: u32, equal: bool },
    /// PNA's `add_entry(action, params, profile)` (add-on-miss).
    AddEntry,
    /// P4TC's `add_entry_if(condition, action, params, profile)`.
    AddEntryIf,
    /// `hash(out result, algo, base, { fields }, max)`: the named
    /// algorithm's hash of the fields, `base + hash % max`.
    HashWithAlgorithm,
    /// `verify_checksum(cond, { fields }, checksum, algo)`: 1 into the
    /// place when the fields' checksum differs.
    VerifyChecksum(Place),
    /// `update_checksum(cond, { fields }, checksum, algo)`.
    UpdateChecksum,
    /// `verify_checksum_with_payload`: as `VerifyChecksum`, the payload
    /// after the fields.
    VerifyChecksumWithPayload(Place),
    /// `update_checksum_with_payload`.
    UpdateChecksumWithPayload,
    /// `random(out result, lo, hi)`.
    Random,
    /// `assert(cond)`: when false, `code` into the place and the control ends.
    Assert(Place, u32),
    /// v1model's `digest(receiver, data)`: sends `data` to the control
    /// plane (`receiver` is BMv2's and ignored).
    Digest,
    /// A call without effect on the packet (`log_msg`).
    Ignore,
    /// PNA's calls on the matched entry's timer (`ir::EntryTimer`).
    EntryTimer(TimerCall),
    /// P4TC's `skb_*` externs on the socket buffer's metadata.
    SkbMeta(SkbCall),
    /// A call p4bpf refuses, with why.
    Unsupported(&'static str),
    /// PNA's `mirror_packet(slot, session)`, with its number of slots.
    Mirror { slots: u32 },
    /// v1model's `resubmit_preserving_field_list(index)` and
    /// `recirculate_preserving_field_list(index)`: another pass keeping
    /// field list `index`.
    AnotherPass(Pass),
    /// v1model's `clone(type, session)` and, with `field_list`,
    /// `clone_preserving_field_list(type, session, index)`.
    Clone { field_list: bool },
}

/// Why a packet goes through ingress again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// At the end of ingress, the packet as received.
    Resubmit,
    /// At the end of egress, the packet as the deparser wrote it.
    Recirculate,
}

/// PNA's entry-timer functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerCall {
    /// `set_entry_expire_time(profile)`.
    SetExpireTime,
    /// `set_entry_expire_time_if(condition, profile)`.
    SetExpireTimeIf,
    /// `restart_expire_timer()`.
    Restart,
    /// `update_expire_info(update_aging_info, update_expire_time, profile)`.
    UpdateExpireInfo,
}

/// P4TC's functions on the socket buffer's metadata (`tc/pna.p4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkbCall {
    /// `skb_get_meta()`: forgets values set and not yet written.
    Load,
    /// `skb_set_meta()`: writes the values set since.
    Store,
    /// `skb_get_FIELD()`.
    Get(SkbField),
    /// `skb_set_FIELD(value)`.
    Set(SkbField),
    /// A field the eBPF program cannot reach on a stock kernel, with why.
    Unreachable(&'static str),
}

/// A value an input gets before the first step, beyond [`Intrinsics`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// The value of another place, one of [`Intrinsics`]' inputs.
    Copy(Place),
    /// The time in nanoseconds.
    TimeNs,
    Const(u32),
}

impl Architecture {
    /// The extern function `name` of this architecture, if it declares one.
    pub fn function(&self, name: &str) -> Option<Function> {
        self.functions
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
    }

    /// Variables the architecture keeps for itself, which no block names
    /// (PNA's destination): names and widths in bits.
    pub fn internal_vars(&self) -> &'static [(&'static str, u32)] {
        match self.arch {
            Arch::Pna | Arch::PnaTc => pna::INTERNAL,
            _ => &[],
        }
    }

    /// Inputs set before the first step beyond [`Intrinsics`], in order.
    pub fn inputs(&self) -> &'static [(Place, Input)] {
        match self.arch {
            Arch::Pna => pna::INPUTS,
            Arch::PnaTc => pna::TC_INPUTS,
            _ => &[],
        }
    }

    /// The extern object type `name` of this architecture, if it declares one.
    pub fn object(&self, name: &str) -> Option<Object> {
        self.objects
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, o)| *o)
    }
}

/// Every architecture the compiler knows.
const ALL: [&Architecture; 7] = [
    &ebpf_model::EBPF_MODEL,
    &xdp_model::XDP_MODEL,
    &ubpf_model::UBPF_MODEL,
    &pna::PNA,
    &pna::PNA_TC,
    &psa::PSA,
    &v1model::V1MODEL,
];

/// The architecture whose package is `package`.
pub fn find(package: &str) -> Option<&'static Architecture> {
    ALL.into_iter().find(|a| a.package == package)
}

/// The architecture whose package is `package` and takes `blocks`
/// blocks (PNA's two flavours share a package name), else [`find`]'s.
pub fn find_with_blocks(package: &str, blocks: usize) -> Option<&'static Architecture> {
    ALL.into_iter()
        .find(|a| a.package == package && a.blocks.len() == blocks)
        .or_else(|| find(package))
}

/// The description of `arch`.
pub fn find_arch(arch: Arch) -> Option<&'static Architecture> {
    ALL.into_iter().find(|a| a.arch == arch)
}

/// The packages [`find`] knows, for error messages.
pub fn known_packages() -> String {
    ALL.iter()
        .map(|a| format!("`{}` ({}.p4)", a.package, a.arch.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_names_a_block_of_its_kind_and_places_name_shared_vars() {
        for package in ["ebpfFilter", "xdp", "ubpf", "PSA_Switch", "V1Switch"] {
            let a = find(package).expect(package);
            for step in a.steps {
                let (i, kinds): (usize, &[BlockKind]) = match *step {
                    Step::Parse(i) | Step::ParseKeepingError(i, _) => (i, &[BlockKind::Parser]),
                    Step::Checkpoint => continue,
                    Step::Control(i) => (i, &[BlockKind::Control]),
                    Step::Deparse(i) => (i, &[BlockKind::Deparser]),
                };
                assert!(kinds.contains(&a.blocks[i].kind), "{package} step {step:?}");
            }
            let shared = |p: &Place| {
                a.blocks
                    .iter()
                    .any(|b| b.params.contains(&Param::Shared(p.var)))
            };
            let i = &a.intrinsics;
            for p in [i.ingress_port, i.packet_length, i.output_port]
                .iter()
                .flatten()
            {
                assert!(shared(p), "{package}: {p:?}");
            }
            let verdict = match &i.verdict {
                Verdict::Accept(p)
                | Verdict::Code { place: p, .. }
                | Verdict::Port { place: p, .. } => p,
            };
            assert!(shared(verdict), "{package}: {verdict:?}");
        }
        assert!(find("v1switch").is_none());
        assert!(known_packages().contains("`ubpf` (ubpf_model.p4)"));
    }
}
