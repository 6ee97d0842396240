//! PNA's `mirror_packet` at XDP ([`crate::ir::Mirror`]), by a devmap
//! broadcast as [`super::xdp_copies`] makes copies: XDP cannot copy a
//! frame in a program, but the kernel copies it once per port of a
//! devmap when the program returns `bpf_redirect_map(.., BPF_F_BROADCAST)`.
//!
//! After the main deparser (and the last recirculation), a packet whose
//! slots were called writes its plan in a slot of a per-CPU ring: the
//! interfaces its frames leave by (each called session's member ports,
//! then the packet's own port when it was sent to one) and puts the
//! plan's sequence number in the frame's XDP metadata. It leaves by the
//! devmap of the first called session that has one, which the control
//! plane fills with the session's members and every port of the
//! pipeline. The devmap's program, `ENTRY_egress`, passes a frame whose
//! interface has a copy not yet taken in the plan, and drops the rest.
//!
//! What XDP cannot do, mirroring being best effort in PNA: a packet
//! passed to the host, or recirculated, makes no copies (one verdict
//! cannot both pass and broadcast), only the last pass's slots are
//! carried out, and a port gets at most as many frames as the session's
//! devmap lists it (twice for a member, once for the others).

use super::c::{line, CStmt};
use super::replication::{egress_entry_name, MAX_REPLICAS};
use super::Emitter;
use crate::ir::{Mirror, Outcome, Program, VerdictRule};
use p4bpf_layout::Hook;

/// Packets whose copies may wait at once on one CPU (a NAPI poll hands
/// at most 64 to XDP before the flush sends their frames).
const RING: u32 = 128;
/// Frames one packet can make: every member of a session per slot, and
/// the packet itself.
const MAX_FRAMES: u32 = 2 * MAX_REPLICAS + 1;
/// Entries of a session's devmap: its members and every port.
const DEVMAP_SIZE: u32 = 2 * MAX_REPLICAS + 1;

/// The map from a session to its devmap, at XDP.
pub fn mirror_ports_map(prog: &Program) -> String {
    format!("{}_mirror_ports", super::c_identifier(&prog.name))
}

impl Emitter<'_> {
    fn xdp_mirror(&self) -> Option<&Mirror> {
        let mirror = self.prog.intrinsics.mirror.as_ref();
        mirror.filter(|_| self.hook == Hook::Xdp)
    }

    /// After the last deparser and recirculation: a packet with slots
    /// called leaves by its session's devmap, if it can.
    pub(super) fn pna_xdp_mirror_call(&self, deparser: usize) -> Vec<CStmt> {
        let Some(mirror) = self.xdp_mirror() else {
            return vec![];
        };
        if !self.is_last_deparser(deparser) {
            return vec![];
        }
        let called: Vec<String> = mirror.slots.iter().map(|s| self.expr(s)).collect();
        vec![CStmt::If {
            cond: called.join(" || "),
            then: vec![
                line(format!(
                    "int mirrored = {}_mirror(ctx, st)",
                    self.c_prefix()
                )),
                CStmt::If {
                    cond: "mirrored >= 0".into(),
                    then: vec![CStmt::Return("mirrored".into())],
                    other: vec![],
                },
            ],
            other: vec![],
        }]
    }

    /// The devmaps, the ring of plans, `NAME_mirror` and the devmap's
    /// program.
    pub(super) fn pna_xdp_mirror_definitions(&self) -> String {
        let Some(mirror) = self.xdp_mirror() else {
            return String::new();
        };
        let p = self.c_prefix();
        let ports = mirror_ports_map(self.prog);
        let mut out = self.mirror_sessions_definition();
        out.push_str(&format!(
            "/* Session -> the ports its frames leave by (its members and every port), each\n * with {p}'s devmap program; filled by the control plane. */\n\
             struct {p}_mirror_devmap {{\n    __uint(type, BPF_MAP_TYPE_DEVMAP_HASH);\n    __uint(key_size, sizeof(u32));\n    __uint(value_size, sizeof(struct bpf_devmap_val));\n    __uint(max_entries, {DEVMAP_SIZE});\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);\n    __type(key, u64);\n    __uint(max_entries, {});\n    __array(values, struct {p}_mirror_devmap);\n}} {ports} SEC(\".maps\");\n\n\
             /* A mirrored packet's frames: the interfaces they leave by. */\n\
             struct {p}_mirror_plan {{\n    u32 seq;\n    u32 count;\n    u32 ifindex[{MAX_FRAMES}];\n    u8 taken[{MAX_FRAMES}];\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, struct {p}_mirror_plan);\n    __uint(max_entries, {RING});\n}} {p}_mirror_ring SEC(\".maps\");\n\n\
             /* [0] the sequence number of this CPU's last mirrored packet. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, 1);\n}} {p}_mirror_seq SEC(\".maps\");\n\n",
            super::pna_mirror::MAX_SESSIONS
        ));
        out.push_str(&self.plan_add_function());
        out.push_str(&self.plan_session_function());
        out.push_str(&self.mirror_send_function(mirror));
        out.push_str(&self.mirror_devmap_program());
        out
    }

    /// `NAME_mirror_add`: one frame out of P4 port `port`, if it has an
    /// interface.
    fn plan_add_function(&self) -> String {
        let p = self.c_prefix();
        let ports = super::port_map(self.prog).unwrap_or_default();
        let body = vec![
            line(format!(
                "u32 *ifindex = bpf_map_lookup_elem(&{ports}, &port)"
            )),
            line("u32 n = plan->count"),
            CStmt::If {
                cond: format!("!ifindex || n >= {MAX_FRAMES}"),
                then: vec![CStmt::Return(String::new())],
                other: vec![],
            },
            line("plan->ifindex[n] = *ifindex"),
            line("plan->taken[n] = 0"),
            line("plan->count = n + 1"),
        ];
        let mut out = format!(
            "/* Adds a frame out of P4 port `port` to the plan (none when the port has no interface). */\n\
             static __always_inline void {p}_mirror_add(struct {p}_mirror_plan *plan, u32 port)\n{{\n"
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// `NAME_mirror_plan_session`: a frame per member of session
    /// `session_id`, and the session's devmap (none for a session nobody
    /// made).
    fn plan_session_function(&self) -> String {
        let p = self.c_prefix();
        let sessions = super::pna_mirror::sessions_map(self.prog);
        let ports = mirror_ports_map(self.prog);
        let body = vec![
            line(format!(
                "struct {p}_mirror_session *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
            )),
            CStmt::If {
                cond: "!session".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            CStmt::For {
                head: format!("u32 i = 0; i < {MAX_REPLICAS} && i < session->count; i++"),
                body: vec![line(format!(
                    "{p}_mirror_add(plan, session->members[i].port)"
                ))],
            },
            CStmt::Comment("a session's devmap".into()),
            line(format!(
                "u64 key = {:#x}ULL | session_id",
                p4bpf_layout::SESSION_KEY
            )),
            CStmt::Return(format!("bpf_map_lookup_elem(&{ports}, &key)")),
        ];
        let mut out = format!(
            "/* Adds a frame per member of session `session_id` to the plan; the session's devmap. */\n\
             static __always_inline void *{p}_mirror_plan_session(struct {p}_mirror_plan *plan, u32 session_id)\n{{\n"
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// `NAME_mirror`: the plan of a packet whose slots were called, and
    /// the broadcast; -1 when it makes no copy (the packet then goes as
    /// the program decided).
    fn mirror_send_function(&self, mirror: &Mirror) -> String {
        let p = self.c_prefix();
        let mut body = self.original_frame();
        body.extend([
            line("u32 zero = 0"),
            line(format!(
                "u32 *seq = bpf_map_lookup_elem(&{p}_mirror_seq, &zero)"
            )),
            CStmt::If {
                cond: "!seq".into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            line("u32 next = *seq + 1"),
            line(format!("u32 slot = next % {RING}")),
            line(format!(
                "struct {p}_mirror_plan *plan = bpf_map_lookup_elem(&{p}_mirror_ring, &slot)"
            )),
            CStmt::If {
                cond: "!plan".into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            line("plan->count = 0"),
            line("void *devmap = 0"),
        ]);
        for slot in &mirror.slots {
            let slot = self.expr(slot);
            body.push(CStmt::If {
                cond: slot.clone(),
                then: vec![
                    line(format!(
                        "void *ports = {p}_mirror_plan_session(plan, {slot} - 1)"
                    )),
                    CStmt::If {
                        cond: "!devmap".into(),
                        then: vec![line("devmap = ports")],
                        other: vec![],
                    },
                ],
                other: vec![],
            });
        }
        body.extend([
            CStmt::If {
                cond: "!devmap || !plan->count".into(),
                then: vec![CStmt::Return("-1 /* no session made: no copy */".into())],
                other: vec![],
            },
            CStmt::If {
                cond: "original".into(),
                then: vec![line(format!("{p}_mirror_add(plan, original_port)"))],
                other: vec![],
            },
        ]);
        body.extend(self.mirror_mtu_drops());
        body.extend([
            line("*seq = next"),
            line("plan->seq = next"),
            CStmt::If {
                cond: "bpf_xdp_adjust_meta(ctx, -(int)sizeof(u32))".into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            line("u32 *meta = (u32 *)(long)ctx->data_meta"),
            CStmt::If {
                cond: "(void *)(meta + 1) > (void *)(long)ctx->data".into(),
                then: vec![CStmt::Return("-1".into())],
                other: vec![],
            },
            line("*meta = next"),
            CStmt::Return("bpf_redirect_map(devmap, 0, BPF_F_BROADCAST)".into()),
        ]);
        let mut out = format!(
            "/* mirror_packet at XDP: the frames of the packet as the main deparser wrote it\n * (the sessions' members, the packet itself if sent to a port) leave by the\n * first session's devmap; -1 when no copy is made. */\n\
             static __always_inline int {p}_mirror(struct xdp_md *ctx, struct {} *st)\n{{\n",
            self.state_type()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// The planned frames that do not fit their interface, counted: the
    /// kernel's broadcast drops them before the devmap's program runs
    /// (`xdp_ok_fwd_dev`), so they are counted here (`emit/mtu.rs`).
    fn mirror_mtu_drops(&self) -> Vec<CStmt> {
        if !self.mtu_checked {
            return vec![];
        }
        vec![CStmt::For {
            head: format!("u32 i = 0; i < {MAX_FRAMES} && i < plan->count; i++"),
            body: vec![line("p4bpf_over_mtu(ctx, plan->ifindex[i])")],
        }]
    }

    /// `original` and `original_port`: whether the packet itself leaves by
    /// a port, and which; a verdict that passes it to the host (or
    /// anything but a port or a drop) makes no copies.
    fn original_frame(&self) -> Vec<CStmt> {
        let VerdictRule::Code { place, outcomes } = &self.prog.intrinsics.verdict else {
            return vec![CStmt::Return("-1".into())];
        };
        let port = self.prog.intrinsics.output_port.as_ref();
        let port = port.map(|e| self.expr(e)).unwrap_or_else(|| "0".into());
        let codes = |wanted: Outcome| -> Vec<String> {
            outcomes
                .iter()
                .filter(|(_, o)| *o == wanted)
                .map(|(code, _)| code.to_string())
                .collect()
        };
        vec![
            line("int original = 0"),
            line(format!("u32 original_port = {port}")),
            CStmt::Switch {
                scrutinee: self.expr(place),
                cases: vec![
                    (codes(Outcome::Redirect), vec![line("original = 1")]),
                    (codes(Outcome::Drop), vec![]),
                ],
                default: vec![CStmt::Return(
                    "-1 /* to the host: XDP cannot also broadcast */".into(),
                )],
            },
        ]
    }

    /// `ENTRY_egress`, the devmap's program: a frame leaves when its
    /// interface has a frame of the plan not yet taken.
    fn mirror_devmap_program(&self) -> String {
        let p = self.c_prefix();
        let drop = |why: &str| CStmt::Return(format!("XDP_DROP /* {why} */"));
        let body = vec![
            line("u32 zero = 0"),
            line(format!(
                "u32 *last = bpf_map_lookup_elem(&{p}_mirror_seq, &zero)"
            )),
            CStmt::If {
                cond: "!last".into(),
                then: vec![drop("no sequence")],
                other: vec![],
            },
            CStmt::Comment("generic XDP keeps no metadata, but sends the frames at once".into()),
            line("u32 *meta = (u32 *)(long)ctx->data_meta"),
            line("u32 seq = (void *)(meta + 1) <= (void *)(long)ctx->data ? *meta : *last"),
            line(format!("u32 slot = seq % {RING}")),
            line(format!(
                "struct {p}_mirror_plan *plan = bpf_map_lookup_elem(&{p}_mirror_ring, &slot)"
            )),
            CStmt::If {
                cond: "!plan || plan->seq != seq".into(),
                then: vec![drop("its slot was taken by a later packet")],
                other: vec![],
            },
            CStmt::For {
                head: format!("u32 i = 0; i < {MAX_FRAMES} && i < plan->count; i++"),
                body: vec![CStmt::If {
                    cond: "!plan->taken[i] && plan->ifindex[i] == ctx->egress_ifindex".into(),
                    then: vec![line("plan->taken[i] = 1"), CStmt::Return("XDP_PASS".into())],
                    other: vec![],
                }],
            },
            drop("no frame of this packet is for this port"),
        ];
        let mut out = format!(
            "/* The mirror devmap's program: passes the frames {} planned, one per entry\n * of its plan, and drops the other ports' frames. */\nSEC(\"xdp/devmap\")\nint {}(struct xdp_md *ctx)\n{{\n",
            self.prog.name,
            egress_entry_name(self.prog, self.hook)
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }
}
