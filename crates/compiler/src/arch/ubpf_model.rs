//! ubpf_model (p4c's user-space uBPF back end, revision 20200515):
//! `ubpf(parse, pipeline, deparser)` sharing `standard_metadata`, whose
//! `output_action` (a `ubpf_action`, PASS unless the program changes it)
//! is the verdict. `clone` and `clone_port` are not acted on.

use super::{
    Architecture, Block, BlockKind, Function, Intrinsics, Object, Param, Place, Step, Verdict,
};
use crate::ir::{Arch, Builtin, Outcome};

const OUTPUT_ACTION: Place = Place::field("std", "output_action");
// ubpf_action's members in order.
const ABORT: u32 = 0;
const DROP: u32 = 1;
const PASS: u32 = 2;
const REDIRECT: u32 = 3;

pub const UBPF_MODEL: Architecture = Architecture {
    arch: Arch::UbpfModel,
    package: "ubpf",
    blocks: &[
        Block {
            role: "parse",
            kind: BlockKind::Parser,
            params: &[
                Param::Packet,
                Param::Headers,
                Param::Shared("meta"),
                Param::Shared("std"),
            ],
        },
        Block {
            role: "pipeline",
            kind: BlockKind::Control,
            params: &[Param::Headers, Param::Shared("meta"), Param::Shared("std")],
        },
        Block {
            role: "deparser",
            kind: BlockKind::Deparser,
            params: &[Param::Packet, Param::Headers],
        },
    ],
    steps: &[Step::Parse(0), Step::Control(1), Step::Deparse(2)],
    intrinsics: Intrinsics {
        ingress_port: Some(Place::field("std", "input_port")),
        packet_length: Some(Place::field("std", "packet_length")),
        output_port: Some(Place::field("std", "output_port")),
        verdict: Verdict::Code {
            place: OUTPUT_ACTION,
            outcomes: &[
                (ABORT, Outcome::Abort),
                (DROP, Outcome::Drop),
                (PASS, Outcome::Pass),
                (REDIRECT, Outcome::Redirect),
            ],
        },
        // p4c's uBPF programs return "forward" from `reject`, before any deparsing.
        on_reject: Outcome::Pass,
        defaults: &[(OUTPUT_ACTION, PASS)],
    },
    functions: &[
        ("mark_to_drop", Function::SetCode(OUTPUT_ACTION, DROP)),
        ("mark_to_pass", Function::SetCode(OUTPUT_ACTION, PASS)),
        ("ubpf_time_get_ns", Function::Builtin(Builtin::TimeNs48, 48)),
        (
            "csum_replace2",
            Function::Builtin(Builtin::CsumReplace2, 16),
        ),
        (
            "csum_replace4",
            Function::Builtin(Builtin::CsumReplace4, 16),
        ),
        ("hash", Function::Hash(Builtin::Lookup3)),
        ("truncate", Function::Truncate),
    ],
    objects: &[("Register", Object::Register)],
    extern_prelude: EXTERN_PRELUDE,
};

/// What p4c's uBPF headers give extern files: fixed-width integer names
/// and byte-order conversions.
const EXTERN_PRELUDE: &str = "\
/* What extern files for p4c's uBPF back end expect from its headers. */
typedef __u8 uint8_t;
typedef __u16 uint16_t;
typedef __u32 uint32_t;
typedef __u64 uint64_t;
#define htons(x) bpf_htons(x)
#define ntohs(x) bpf_ntohs(x)
#define htonl(x) bpf_htonl(x)
#define ntohl(x) bpf_ntohl(x)
#define __constant_ntohs(x) bpf_ntohs(x)

";
