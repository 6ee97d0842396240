//! ebpf_model (p4c's eBPF kernel back end): `ebpfFilter(parse, filter)`;
//! the filter's `accept` says whether the packet passes.

use super::{Architecture, Block, BlockKind, Intrinsics, Object, Param, Place, Step, Verdict};
use crate::ir::{Arch, Outcome};

pub const EBPF_MODEL: Architecture = Architecture {
    arch: Arch::EbpfModel,
    package: "ebpfFilter",
    blocks: &[
        Block {
            role: "parse",
            kind: BlockKind::Parser,
            params: &[Param::Packet, Param::Headers],
        },
        Block {
            role: "filter",
            kind: BlockKind::Control,
            params: &[Param::Headers, Param::Shared("accept")],
        },
    ],
    steps: &[Step::Parse(0), Step::Control(1)],
    intrinsics: Intrinsics {
        ingress_port: None,
        packet_length: None,
        output_port: None,
        verdict: Verdict::Accept(Place::var("accept")),
        on_reject: Outcome::Drop,
        defaults: &[],
    },
    functions: &[],
    objects: &[("CounterArray", Object::CounterArray)],
    extern_prelude: "",
};
