//! PNA, the Portable NIC Architecture (`pna.p4`): `PNA_NIC(main parser,
//! pre-control, main control, main deparser)`; and P4TC's flavour
//! (`tc/pna.p4`), the same package without the pre-control.
//!
//! The packet's fate is not a metadata field in PNA but the last call of
//! `drop_packet()` or `send_to_port(port)`; p4bpf keeps it in two
//! variables of its own, `pna_verdict` and `pna_port`. A packet neither
//! function sent is dropped, as P4TC's programs expect.
//!
//! Direction: p4bpf runs at the ingress hooks (XDP, TC ingress), so every
//! packet arrives from the network: `NET_TO_HOST`. The host is the one
//! port `PNA_PORT_CPU`: `send_to_port(PNA_PORT_CPU)` passes the packet to
//! the host's stack, `is_host_port(p)` holds for it alone and
//! `is_net_port(p)` for every other port.
//!
//! `recirculate()` is a forwarding function like the other two (the last
//! call of the three wins): the packet the main deparser wrote runs the
//! pipeline again, with `pass` one more and `loopedback` true, at most
//! `ir::Resubmit::MAX_PASSES` times, then it is dropped.
//!
//! `mirror_packet(slot, session)` is not a forwarding function: each of
//! the four slots sends a copy of the packet the main deparser wrote to
//! its last call's session (`lower::pna_mirror`, `emit::pna_mirror`).

use super::{
    Architecture, Block, BlockKind, Function, Input, Intrinsics, Object, Param, Place, SkbCall,
    Step, TimerCall, Verdict,
};
use crate::ir::{Arch, Builtin, Outcome, SkbField};

/// Where `drop_packet` and `send_to_port` leave their decision.
pub const VERDICT: Place = Place::var("pna_verdict");
/// The port `send_to_port` chose.
const PORT: Place = Place::var("pna_port");
// The codes `VERDICT` holds.
pub const DROP: u32 = 0;
const SEND: u32 = 1;
const TO_HOST: u32 = 2;
/// `recirculate()`: after the main deparser, the packet it wrote goes
/// through the pipeline again (see `lower::pna`).
pub const RECIRCULATE: u32 = 3;
/// `PNA_PORT_CPU`: the host.
const HOST_PORT: u32 = 0xffff_fffd;
/// `NET_TO_HOST`, `PNA_Direction_t`'s first member.
const NET_TO_HOST: u32 = 0;

/// The variables p4bpf keeps for PNA, and their widths.
pub const INTERNAL: &[(&str, u32)] = &[
    ("pna_verdict", 8),
    ("pna_port", 32),
    (TIMER_REQUEST, 8),
    (TIMER_PROFILE, 8),
];
/// What the matched entry's action asked of its timer (`ir::EntryTimer`).
pub const TIMER_REQUEST: &str = "pna_timer_request";
pub const TIMER_PROFILE: &str = "pna_timer_profile";

const PARSER_ISTD: &str = "parser_istd";
const ISTD: &str = "istd";
const OSTD: &str = "ostd";
const INPUT_PORT: Place = Place::field(ISTD, "input_port");

/// Input metadata beyond the ingress port, for `pna.p4`.
pub const INPUTS: &[(Place, Input)] = &[
    (
        Place::field(PARSER_ISTD, "input_port"),
        Input::Copy(INPUT_PORT),
    ),
    (
        Place::field("pre_istd", "input_port"),
        Input::Copy(INPUT_PORT),
    ),
    (Place::field(ISTD, "timestamp"), Input::TimeNs),
    (Place::field(ISTD, "direction"), Input::Const(NET_TO_HOST)),
    (
        Place::field(PARSER_ISTD, "direction"),
        Input::Const(NET_TO_HOST),
    ),
    (
        Place::field("pre_istd", "direction"),
        Input::Const(NET_TO_HOST),
    ),
];

/// Input metadata beyond the ingress port, for `tc/pna.p4`.
pub const TC_INPUTS: &[(Place, Input)] = &[
    (
        Place::field(PARSER_ISTD, "input_port"),
        Input::Copy(INPUT_PORT),
    ),
    (Place::field(ISTD, "timestamp"), Input::TimeNs),
];

const PARSER: Block = Block {
    role: "main_parser",
    kind: BlockKind::Parser,
    params: &[
        Param::Packet,
        Param::Headers,
        Param::Shared("meta"),
        Param::Shared(PARSER_ISTD),
    ],
};

const CONTROL: Block = Block {
    role: "main_control",
    kind: BlockKind::Control,
    params: &[
        Param::Headers,
        Param::Shared("meta"),
        Param::Shared(ISTD),
        Param::Shared(OSTD),
    ],
};

const DEPARSER: Block = Block {
    role: "main_deparser",
    kind: BlockKind::Deparser,
    params: &[
        Param::Packet,
        Param::Headers,
        Param::Shared("meta"),
        Param::Shared(OSTD),
    ],
};

/// The pre-control sees the main parser's headers and metadata (PNA's
/// programs declare the same types for both).
const PRE_CONTROL: Block = Block {
    role: "pre_control",
    kind: BlockKind::Control,
    params: &[
        Param::Headers,
        Param::Shared("meta"),
        Param::Shared("pre_istd"),
        Param::Shared("pre_ostd"),
    ],
};

const INTRINSICS: Intrinsics = Intrinsics {
    ingress_port: Some(INPUT_PORT),
    packet_length: None,
    output_port: Some(PORT),
    verdict: Verdict::Code {
        place: VERDICT,
        outcomes: &[
            (DROP, Outcome::Drop),
            (SEND, Outcome::Redirect),
            (TO_HOST, Outcome::Pass),
            // Past the bound on passes: the recirculation check drops it first.
            (RECIRCULATE, Outcome::Drop),
        ],
    },
    // The main control does not run for a packet the parser rejects.
    on_reject: Outcome::Drop,
    defaults: &[(VERDICT, DROP)],
};

/// PNA gives every packet at least four mirror slots, 0 to 3.
const MIRROR_SLOTS: u32 = 4;

/// The extern functions both flavours declare.
const FUNCTIONS: &[(&str, Function)] = &[
    ("drop_packet", Function::SetCode(VERDICT, DROP)),
    (
        "send_to_port",
        Function::SendToPort {
            verdict: VERDICT,
            port: PORT,
            code: SEND,
            host: (HOST_PORT, TO_HOST),
        },
    ),
    (
        "mirror_packet",
        Function::Mirror {
            slots: MIRROR_SLOTS,
        },
    ),
    ("recirculate", Function::SetCode(VERDICT, RECIRCULATE)),
    ("SelectByDirection", Function::Select { first: NET_TO_HOST }),
    (
        "is_host_port",
        Function::PortIs {
            port: HOST_PORT,
            equal: true,
        },
    ),
    (
        "is_net_port",
        Function::PortIs {
            port: HOST_PORT,
            equal: false,
        },
    ),
    ("add_entry", Function::AddEntry),
    ("add_entry_if", Function::AddEntryIf),
    (
        "allocate_flow_id",
        Function::Builtin(Builtin::AllocateFlowId, 32),
    ),
    (
        "set_entry_expire_time",
        Function::EntryTimer(TimerCall::SetExpireTime),
    ),
    (
        "set_entry_expire_time_if",
        Function::EntryTimer(TimerCall::SetExpireTimeIf),
    ),
    (
        "restart_expire_timer",
        Function::EntryTimer(TimerCall::Restart),
    ),
    (
        "update_expire_info",
        Function::EntryTimer(TimerCall::UpdateExpireInfo),
    ),
    ("skb_get_meta", Function::SkbMeta(SkbCall::Load)),
    ("skb_set_meta", Function::SkbMeta(SkbCall::Store)),
    (
        "skb_get_tstamp",
        Function::SkbMeta(SkbCall::Get(SkbField::Tstamp)),
    ),
    (
        "skb_get_mark",
        Function::SkbMeta(SkbCall::Get(SkbField::Mark)),
    ),
    (
        "skb_get_tc_classid",
        Function::SkbMeta(SkbCall::Get(SkbField::TcClassid)),
    ),
    (
        "skb_get_tc_index",
        Function::SkbMeta(SkbCall::Get(SkbField::TcIndex)),
    ),
    (
        "skb_get_queue_mapping",
        Function::SkbMeta(SkbCall::Get(SkbField::QueueMapping)),
    ),
    (
        "skb_get_protocol",
        Function::SkbMeta(SkbCall::Get(SkbField::Protocol)),
    ),
    (
        "skb_set_tstamp",
        Function::SkbMeta(SkbCall::Set(SkbField::Tstamp)),
    ),
    (
        "skb_set_mark",
        Function::SkbMeta(SkbCall::Set(SkbField::Mark)),
    ),
    (
        "skb_set_tc_classid",
        Function::SkbMeta(SkbCall::Set(SkbField::TcClassid)),
    ),
    (
        "skb_set_tc_index",
        Function::SkbMeta(SkbCall::Set(SkbField::TcIndex)),
    ),
    (
        "skb_set_queue_mapping",
        Function::SkbMeta(SkbCall::Set(SkbField::QueueMapping)),
    ),
    (
        "skb_set_protocol",
        Function::SkbMeta(SkbCall::Unreachable(SKB_PROTOCOL)),
    ),
    (
        "skb_get_tc_at_ingress",
        Function::SkbMeta(SkbCall::Unreachable(SKB_DIRECTION)),
    ),
    (
        "skb_get_from_ingress",
        Function::SkbMeta(SkbCall::Unreachable(SKB_DIRECTION)),
    ),
];

const SKB_PROTOCOL: &str =
    "the kernel lets no TC program write `skb->protocol` (P4TC sets it through its own kernel patch)";
const SKB_DIRECTION: &str =
    "`struct __sk_buff` does not show whether the packet is at ingress: p4bpf's program runs at TC ingress";

/// Extern objects: the kinds PSA's spellings map to, PSA's and PNA's
/// being the same.
const OBJECTS: &[(&str, Object)] = &[
    ("Register", Object::Register),
    ("InternetChecksum", Object::InternetChecksum),
    ("Counter", Object::PsaCounter),
    ("Random", Object::Random),
    ("Meter", Object::Meter),
    ("DirectCounter", Object::DirectCounter { every_hit: false }),
    ("DirectMeter", Object::DirectMeter { every_hit: false }),
    ("Digest", Object::Digest),
    ("Checksum", Object::CrcChecksum),
    ("Hash", Object::Hash),
    ("ActionProfile", Object::ActionProfile),
    ("ActionSelector", Object::ActionSelector),
    ("ipsec_accelerator", Object::IpsecAccelerator),
];

pub const PNA: Architecture = Architecture {
    arch: Arch::Pna,
    package: "PNA_NIC",
    blocks: &[PARSER, PRE_CONTROL, CONTROL, DEPARSER],
    steps: &[
        Step::Parse(0),
        Step::Control(1),
        Step::Control(2),
        Step::Deparse(3),
    ],
    intrinsics: INTRINSICS,
    functions: FUNCTIONS,
    objects: OBJECTS,
    extern_prelude: "",
};

pub const PNA_TC: Architecture = Architecture {
    arch: Arch::PnaTc,
    package: "PNA_NIC",
    blocks: &[PARSER, CONTROL, DEPARSER],
    steps: &[Step::Parse(0), Step::Control(1), Step::Deparse(2)],
    intrinsics: INTRINSICS,
    functions: FUNCTIONS,
    objects: OBJECTS,
    extern_prelude: "",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flavours_differ_by_the_pre_control_alone() {
        assert_eq!(PNA.blocks.len(), PNA_TC.blocks.len() + 1);
        assert_eq!(PNA.blocks[1].role, "pre_control");
        let roles = |a: &Architecture| a.blocks.iter().map(|b| b.role).collect::<Vec<_>>();
        let mut main = roles(&PNA);
        main.remove(1);
        assert_eq!(main, roles(&PNA_TC));
    }

    #[test]
    fn inputs_are_places_of_shared_variables() {
        for (arch, inputs) in [(&PNA, INPUTS), (&PNA_TC, TC_INPUTS)] {
            for (place, _) in inputs {
                assert!(
                    arch.blocks
                        .iter()
                        .any(|b| b.params.contains(&Param::Shared(place.var))),
                    "{:?}",
                    place
                );
            }
        }
    }
}
