//! xdp_model (p4c's XDP back end): `xdp(parser, switch, deparser)`; the
//! switch's `xdp_output.output_action` (an `xdp_action`) is the verdict.

use super::{
    Architecture, Block, BlockKind, Function, Intrinsics, Object, Param, Place, Step, Verdict,
};
use crate::ir::{Arch, Builtin, Outcome};

const OUTPUT_ACTION: Place = Place::field("omd", "output_action");

pub const XDP_MODEL: Architecture = Architecture {
    arch: Arch::XdpModel,
    package: "xdp",
    blocks: &[
        Block {
            role: "parser",
            kind: BlockKind::Parser,
            params: &[Param::Packet, Param::Headers],
        },
        Block {
            role: "switch",
            kind: BlockKind::Control,
            params: &[Param::Headers, Param::Shared("imd"), Param::Shared("omd")],
        },
        Block {
            role: "deparser",
            kind: BlockKind::Deparser,
            params: &[Param::Headers, Param::Packet],
        },
    ],
    steps: &[Step::Parse(0), Step::Control(1), Step::Deparse(2)],
    intrinsics: Intrinsics {
        ingress_port: Some(Place::field("imd", "input_port")),
        packet_length: None,
        output_port: Some(Place::field("omd", "output_port")),
        // xdp_action's members in order: XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT.
        verdict: Verdict::Code {
            place: OUTPUT_ACTION,
            outcomes: &[
                (0, Outcome::Abort),
                (1, Outcome::Drop),
                (2, Outcome::Pass),
                (3, Outcome::Transmit),
                (4, Outcome::Redirect),
            ],
        },
        on_reject: Outcome::Drop,
        defaults: &[],
    },
    functions: &[
        (
            "ebpf_ipv4_checksum",
            Function::Builtin(Builtin::Ipv4Checksum, 16),
        ),
        (
            "csum_replace2",
            Function::Builtin(Builtin::CsumReplace2, 16),
        ),
        (
            "csum_replace4",
            Function::Builtin(Builtin::CsumReplace4, 16),
        ),
        (
            "BPF_KTIME_GET_NS",
            Function::Builtin(Builtin::KtimeGetNs, 32),
        ),
        (
            "BPF_PERF_EVENT_OUTPUT",
            Function::Builtin(Builtin::PerfEventOutput, 32),
        ),
    ],
    // xdp_model.p4 includes ebpf_model.p4, and with it its counters.
    objects: &[("CounterArray", Object::CounterArray)],
    extern_prelude: "",
};
