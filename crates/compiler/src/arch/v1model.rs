//! v1model (BMv2's simple_switch): `V1Switch(parser, verifyChecksum,
//! ingress, egress, computeChecksum, deparser)` sharing `meta` and
//! `standard_metadata`. As on BMv2, a parser error does not drop: it is
//! stored in `parser_error` and ingress runs. After ingress an
//! `egress_spec` of 511 (the drop port, `mark_to_drop`) drops the packet;
//! otherwise `egress_port` takes `egress_spec` and egress runs. After
//! egress the drop port still drops (`mark_to_drop` in egress); any other
//! value sends the packet out of `egress_port`.
//!
//! Resubmission (decided at the end of ingress, before multicast and the
//! drop port, as BMv2 orders them) and recirculation (at the end of
//! egress, unless egress dropped the packet) are passes: see
//! `lower::v1model_passes`.

use super::{
    Architecture, Block, BlockKind, Function, Intrinsics, Object, Param, Pass, Place, Step, Verdict,
};
use crate::ir::{Arch, Outcome};

const STD: &str = "standard_metadata";
const EGRESS_SPEC: Place = Place::field(STD, "egress_spec");
const CHECKSUM_ERROR: Place = Place::field(STD, "checksum_error");
const DEPRECATED_CLONE: &str =
    "the deprecated form keeps no field list here: use `clone_preserving_field_list` with `@field_list`";
const DEPRECATED_PASS: &str =
    "the deprecated form keeps no field list here: use `resubmit_preserving_field_list` or `recirculate_preserving_field_list` with `@field_list`";
/// BMv2's drop port.
const DROP_PORT: u32 = 511;

/// A control over the headers, `meta` and `standard_metadata`.
const PIPE: &[Param] = &[Param::Headers, Param::Shared("meta"), Param::Shared(STD)];
/// A checksum control: the headers and `meta`.
const CHECKSUM: &[Param] = &[Param::Headers, Param::Shared("meta")];

pub const V1MODEL: Architecture = Architecture {
    arch: Arch::V1Model,
    package: "V1Switch",
    blocks: &[
        Block {
            role: "p",
            kind: BlockKind::Parser,
            params: &[
                Param::Packet,
                Param::Headers,
                Param::Shared("meta"),
                Param::Shared(STD),
            ],
        },
        Block {
            role: "vr",
            kind: BlockKind::Control,
            params: CHECKSUM,
        },
        Block {
            role: "ig",
            kind: BlockKind::Control,
            params: PIPE,
        },
        Block {
            role: "eg",
            kind: BlockKind::Control,
            params: PIPE,
        },
        Block {
            role: "ck",
            kind: BlockKind::Control,
            params: CHECKSUM,
        },
        Block {
            role: "dep",
            kind: BlockKind::Deparser,
            params: &[Param::Packet, Param::Headers],
        },
    ],
    steps: &[
        Step::ParseKeepingError(0, Place::field(STD, "parser_error")),
        Step::Control(1),
        Step::Control(2),
        Step::Checkpoint,
        Step::Control(3),
        Step::Control(4),
        Step::Deparse(5),
    ],
    intrinsics: Intrinsics {
        ingress_port: Some(Place::field(STD, "ingress_port")),
        packet_length: Some(Place::field(STD, "packet_length")),
        output_port: Some(Place::field(STD, "egress_port")),
        verdict: Verdict::Port {
            place: EGRESS_SPEC,
            drop: DROP_PORT,
        },
        // Not reached: the parser step keeps the error and goes on.
        on_reject: Outcome::Drop,
        // BMv2 starts every packet with egress_spec 0.
        defaults: &[(EGRESS_SPEC, 0)],
    },
    functions: &[
        ("mark_to_drop", Function::SetCode(EGRESS_SPEC, DROP_PORT)),
        ("hash", Function::HashWithAlgorithm),
        ("verify_checksum", Function::VerifyChecksum(CHECKSUM_ERROR)),
        ("update_checksum", Function::UpdateChecksum),
        ("random", Function::Random),
        ("assert", Function::Assert(EGRESS_SPEC, DROP_PORT)),
        ("assume", Function::Assert(EGRESS_SPEC, DROP_PORT)),
        ("log_msg", Function::Ignore),
        (
            "verify_checksum_with_payload",
            Function::VerifyChecksumWithPayload(CHECKSUM_ERROR),
        ),
        (
            "update_checksum_with_payload",
            Function::UpdateChecksumWithPayload,
        ),
        ("digest", Function::Digest),
        ("clone", Function::Clone { field_list: false }),
        ("clone3", Function::Unsupported(DEPRECATED_CLONE)),
        (
            "clone_preserving_field_list",
            Function::Clone { field_list: true },
        ),
        ("resubmit", Function::Unsupported(DEPRECATED_PASS)),
        (
            "resubmit_preserving_field_list",
            Function::AnotherPass(Pass::Resubmit),
        ),
        ("recirculate", Function::Unsupported(DEPRECATED_PASS)),
        (
            "recirculate_preserving_field_list",
            Function::AnotherPass(Pass::Recirculate),
        ),
        ("truncate", Function::Truncate),
    ],
    objects: &[
        ("register", Object::RegisterReadOut),
        ("counter", Object::TypedCounter),
        ("direct_counter", Object::DirectCounter { every_hit: true }),
        ("meter", Object::Meter),
        ("direct_meter", Object::DirectMeter { every_hit: true }),
        ("action_profile", Object::ActionProfile),
        ("action_selector", Object::ActionSelector),
    ],
    extern_prelude: "",
};
