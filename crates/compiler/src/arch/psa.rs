//! PSA (the Portable Switch Architecture, psa.p4):
//! `PSA_Switch(IngressPipeline(parser, ingress, deparser),
//! PacketReplicationEngine(), EgressPipeline(parser, egress, deparser),
//! BufferingQueueingEngine())`. The nested pipelines' blocks are the
//! package's six blocks in order; the two engines are fixed functions.
//!
//! The ingress pipeline decides the packet's fate in
//! `psa_ingress_output_metadata_t`: `drop` (true until `send_to_port`
//! clears it) drops at the checkpoint after the ingress deparser;
//! otherwise the egress pipeline parses the packet the ingress deparser
//! wrote, and the packet leaves by `egress_port` unless egress drops it
//! (`lower::psa_egress` frames the egress blocks).
//!
//! A parser error does not drop the packet (psa.p4): a parser's
//! `reject` stores the error in its control's `parser_error`
//! (`istd.parser_error` at ingress, `egress_istd.parser_error` at
//! egress) and the control runs, deciding the packet's fate.

use super::{Architecture, Block, BlockKind, Intrinsics, Object, Param, Place, Step, Verdict};
use crate::ir::{Arch, Outcome};

/// `psa_ingress_output_metadata_t ostd.drop`, a bool: 0 sends the packet
/// to `ostd.egress_port`, anything else drops it.
const DROP: Place = Place::field("ostd", "drop");

pub const PSA: Architecture = Architecture {
    arch: Arch::Psa,
    package: "PSA_Switch",
    blocks: &[
        Block {
            role: "ingress parser",
            kind: BlockKind::Parser,
            params: &[
                Param::Packet,
                Param::Headers,
                Param::Shared("user_meta"),
                Param::Shared("parser_istd"),
                Param::Shared("resubmit_meta"),
                Param::Shared("recirculate_meta"),
            ],
        },
        Block {
            role: "ingress",
            kind: BlockKind::Control,
            params: &[
                Param::Headers,
                Param::Shared("user_meta"),
                Param::Shared("istd"),
                Param::Shared("ostd"),
            ],
        },
        Block {
            role: "ingress deparser",
            kind: BlockKind::Deparser,
            params: &[
                Param::Packet,
                Param::Shared("clone_i2e_meta"),
                Param::Shared("resubmit_meta"),
                Param::Shared("normal_meta"),
                Param::Headers,
                Param::Shared("user_meta"),
                Param::Shared("ostd"),
            ],
        },
        Block {
            role: "egress parser",
            kind: BlockKind::Parser,
            params: &[
                Param::Packet,
                Param::Shared("egress_headers"),
                Param::Shared("egress_user_meta"),
                Param::Shared("egress_parser_istd"),
                Param::Shared("normal_meta"),
                Param::Shared("clone_i2e_meta"),
                Param::Shared("clone_e2e_meta"),
            ],
        },
        Block {
            role: "egress",
            kind: BlockKind::Control,
            params: &[
                Param::Shared("egress_headers"),
                Param::Shared("egress_user_meta"),
                Param::Shared("egress_istd"),
                Param::Shared("egress_ostd"),
            ],
        },
        Block {
            role: "egress deparser",
            kind: BlockKind::Deparser,
            params: &[
                Param::Packet,
                Param::Shared("clone_e2e_meta"),
                Param::Shared("recirculate_meta"),
                Param::Shared("egress_headers"),
                Param::Shared("egress_user_meta"),
                Param::Shared("egress_ostd"),
                Param::Shared("egress_deparser_istd"),
            ],
        },
    ],
    // `lower::psa_egress` adds the architecture's egress inputs and
    // verdict around the egress control, or drops an egress that cannot
    // change the packet.
    steps: &[
        Step::ParseKeepingError(0, Place::field("istd", "parser_error")),
        Step::Control(1),
        Step::Deparse(2),
        Step::Checkpoint,
        Step::ParseKeepingError(3, Place::field("egress_istd", "parser_error")),
        Step::Control(4),
        Step::Deparse(5),
    ],
    intrinsics: Intrinsics {
        ingress_port: Some(Place::field("istd", "ingress_port")),
        packet_length: None,
        output_port: Some(Place::field("ostd", "egress_port")),
        verdict: Verdict::Code {
            place: DROP,
            outcomes: &[(0, Outcome::Redirect)],
        },
        // Not reached: both parsers keep the error and go on.
        on_reject: Outcome::Drop,
        // psa.p4: a packet is dropped unless ingress sends it somewhere.
        defaults: &[(DROP, 1)],
    },
    functions: &[],
    objects: &[
        ("Counter", Object::PsaCounter),
        ("Register", Object::Register),
        ("InternetChecksum", Object::InternetChecksum),
        ("Random", Object::Random),
        ("Meter", Object::Meter),
        ("DirectCounter", Object::DirectCounter { every_hit: false }),
        ("DirectMeter", Object::DirectMeter { every_hit: false }),
        ("Digest", Object::Digest),
        ("Hash", Object::Hash),
        ("ActionProfile", Object::ActionProfile),
        ("ActionSelector", Object::ActionSelector),
        ("Checksum", Object::CrcChecksum),
    ],
    extern_prelude: "",
};
