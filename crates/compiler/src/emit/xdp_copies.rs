//! Copies at XDP: multicast replicas and v1model's I2E clones (PSA's:
//! [`super::xdp_psa_clone`]; E2E clones: [`super::xdp_clone_e2e`]; clones
//! in a program that resubmits: [`super::xdp_clone_resubmit`]; all on
//! the same plans), through
//! a devmap broadcast (`bpf_redirect_map(.., BPF_F_BROADCAST)`), with
//! egress run on each copy by the devmap's program, `ENTRY_egress`
//! (`SEC("xdp/devmap")`), the egress [`super::replication`] prints for
//! TC too.
//!
//! XDP cannot copy a packet in a program: the kernel copies the frame
//! once per port of a devmap when the program returns, and runs the
//! devmap entry's program on each copy later, when it flushes its queues
//! (on this CPU, in the same poll). So ingress writes the plan down: its
//! state, and the list of copies (port, replica id, kind), in a slot of a
//! per-CPU ring; the frame carries the slot's sequence number in its XDP
//! metadata. Each copy's egress program finds the slot and claims the
//! first copy not yet taken whose port is the interface it leaves by
//! (copies to one port are claimed in the order they were listed, as
//! frames to one port leave in order); a frame no copy is for is dropped.
//!
//! Which devmap: a group's holds its members (`p4bpf mcast` fills it); a
//! clone session's holds its members and every port once, for the
//! original and any replica, whose port is known only per packet. A
//! packet both cloned and multicast gets at most one replica per port.

use super::c::{line, CStmt};
use super::replication::{MAX_GROUPS, MAX_REPLICAS};
use super::Emitter;
use crate::ir::{CloneI2e, Program, VerdictRule};
use p4bpf_layout::Hook;

/// Packets whose copies may wait for their egress at once on one CPU:
/// a NAPI poll handles at most 64 before the flush runs their egress.
pub(super) const RING: u32 = 128;
/// Copies one packet can make: a session's members, a group's, and the
/// original.
pub(super) const MAX_COPIES: u32 = 2 * MAX_REPLICAS + 1;
/// What a copy is, in `struct NAME_copy`'s `kind` (`enum p4bpf_copy_kind`).
pub(super) const ORIGINAL: &str = "P4BPF_ORIGINAL";
pub(super) const REPLICA: &str = "P4BPF_REPLICA";
pub(super) const CLONE: &str = "P4BPF_CLONE";
/// An E2E clone, and the packet that egress cloned, its egress done
/// ([`super::xdp_clone_e2e`]).
pub(super) const CLONE_E2E: &str = "P4BPF_CLONE_E2E";
pub(super) const EGRESSED: &str = "P4BPF_EGRESSED";

/// The map-in-map from a group (or, with [`p4bpf_layout::SESSION_KEY`],
/// a clone session) to its devmap.
pub fn copy_ports_map(prog: &Program) -> String {
    format!("{}_copy_ports", super::c_identifier(&prog.name))
}

impl Emitter<'_> {
    /// Whether this program makes copies at XDP.
    pub(super) fn xdp_copies(&self) -> bool {
        self.hook == Hook::Xdp && self.prog.intrinsics.replication.is_some()
    }

    /// v1model's I2E clone, made at XDP.
    fn xdp_clone(&self) -> Option<&CloneI2e> {
        let clone = self.prog.intrinsics.clone_i2e.as_ref();
        clone.filter(|c| c.field_lists.is_some() && self.xdp_copies())
    }

    /// At the checkpoint, first: a cloned packet's copies (the clones,
    /// then the original, or the replicas) all leave through the session's
    /// devmap; a clone to a session nobody made is no clone.
    pub(super) fn xdp_clone_check(&self) -> Vec<CStmt> {
        let Some(clone) = self.xdp_clone() else {
            return vec![];
        };
        if self.xdp_clones_before_resubmit().is_some() {
            return self.xdp_clone_check_with_passes(clone);
        }
        vec![CStmt::If {
            cond: self.expr(&clone.flag),
            then: vec![
                line(format!(
                    "int copied = {}_clone_i2e(ctx, st, offset, parser_error)",
                    self.c_prefix()
                )),
                CStmt::If {
                    cond: "copied >= 0".into(),
                    then: vec![CStmt::Return("copied".into())],
                    other: vec![],
                },
            ],
            other: vec![],
        }]
    }

    /// At the checkpoint: a packet with a group leaves as its replicas.
    pub(super) fn xdp_multicast_check(&self, group: String) -> Vec<CStmt> {
        vec![CStmt::If {
            cond: format!("{group} != 0"),
            then: vec![CStmt::Return(format!(
                "{}_multicast(ctx, st, {group}, offset, parser_error)",
                self.c_prefix()
            ))],
            other: vec![],
        }]
    }

    /// The ring, the devmaps and the functions planning and sending copies.
    pub(super) fn xdp_copy_definitions(&self) -> String {
        let Some(r) = self.prog.intrinsics.replication.as_ref() else {
            return String::new();
        };
        let p = self.c_prefix();
        let state = self.state_type();
        let outer = copy_ports_map(self.prog);
        let groups = format!("{p}_mcast_groups");
        let received = self.psa_received_fields() + &self.clone_state_fields();
        let traits = self.copy_trait_fields();
        let mut out = format!(
            "/* Multicast groups (`p4bpf mcast`): group -> its members' ports and replica ids. */\n\
             struct {p}_member {{\n    u32 port;\n    u32 rid;\n}};\n\
             struct {p}_group {{\n    u32 count;\n    struct {p}_member members[{MAX_REPLICAS}];\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH);\n    __type(key, u32);\n    __type(value, struct {p}_group);\n    __uint(max_entries, {MAX_GROUPS});\n}} {groups} SEC(\".maps\");\n\n\
             /* The ports a group's (or a clone session's) copies leave by, each with\n * {p}_xdp_egress as its program; filled by the control plane. */\n\
             struct {p}_devmap {{\n    __uint(type, BPF_MAP_TYPE_DEVMAP_HASH);\n    __uint(key_size, sizeof(u32));\n    __uint(value_size, sizeof(struct bpf_devmap_val));\n    __uint(max_entries, {MAX_COPIES});\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);\n    __type(key, u64);\n    __uint(max_entries, {});\n    __array(values, struct {p}_devmap);\n}} {outer} SEC(\".maps\");\n\n\
             /* One copy a packet makes: its port, replica id and kind. */\n\
             enum p4bpf_copy_kind {{ {ORIGINAL}, {REPLICA}, {CLONE}, {CLONE_E2E}, {EGRESSED} }};\n\
             struct {p}_copy {{\n    u32 port;\n    u32 rid;\n    u32 kind;{traits}\n}};\n\
             /* A packet's copies, from ingress to their egress programs. */\n\
             struct {p}_copies {{\n    struct {state} state;\n    u32 seq;\n    u32 offset;\n    u32 count;\n    u8 parser_error;\n    u8 taken[{MAX_COPIES}];\n    struct {p}_copy copy[{MAX_COPIES}];{received}\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, struct {p}_copies);\n    __uint(max_entries, {RING});\n}} {p}_copy_ring SEC(\".maps\");\n\n\
             /* [0] the sequence number of this CPU's last packet with copies. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, 1);\n}} {p}_copy_seq SEC(\".maps\");\n\n\
             /* The state one copy's egress works on. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, struct {state});\n    __uint(max_entries, 1);\n}} {p}_copy_work SEC(\".maps\");\n\n",
            2 * MAX_GROUPS
        );
        let clones = self
            .xdp_clone()
            .or(self.psa_xdp_clone())
            .or(self.xdp_clone_e2e());
        if clones.is_some() {
            out.push_str(&self.sessions_map_definition());
        }
        out.push_str(&self.copy_plan_functions());
        out.push_str(&self.clones_add_function());
        out.push_str(&self.clone_later_function());
        out.push_str(&self.copy_send_functions(r));
        out.push_str(&self.psa_clone_functions(r));
        out.push_str(&self.xdp_clone_e2e_definitions());
        out.push_str(&self.clone_round_function());
        out.push_str(&self.copy_claim_functions(r));
        out
    }

    /// Starting a packet's plan in the next slot, and adding copies to it.
    fn copy_plan_functions(&self) -> String {
        let p = self.c_prefix();
        let state = self.state_type();
        let mut out = format!(
            "/* The next slot of this CPU's ring, holding `st` for the packet's copies. */\n\
             static __always_inline struct {p}_copies *{p}_copies_begin(struct {state} *st, u32 offset, u8 parser_error)\n{{\n"
        );
        let begin = vec![
            line("u32 zero = 0"),
            line(format!(
                "u32 *seq = bpf_map_lookup_elem(&{p}_copy_seq, &zero)"
            )),
            CStmt::If {
                cond: "!seq".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line("u32 next = *seq + 1"),
            line(format!("u32 slot = next % {RING}")),
            line(format!(
                "struct {p}_copies *c = bpf_map_lookup_elem(&{p}_copy_ring, &slot)"
            )),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line("*seq = next"),
            self.copy_state_line("&c->state", "st"),
            line("c->seq = next"),
            line("c->offset = offset"),
            line("c->parser_error = parser_error"),
            line("c->count = 0"),
            CStmt::Return("c".into()),
        ];
        super::c::print(&begin, 1, &mut out);
        out.push_str(&format!(
            "}}\n\n/* Adds one copy of `kind` out of `port` to the plan. */\n\
             static __always_inline void {p}_copies_add(struct {p}_copies *c, u32 port, u32 rid, u32 kind)\n{{\n"
        ));
        let mut add = vec![
            line("u32 n = c->count"),
            CStmt::If {
                cond: format!("n >= {MAX_COPIES}"),
                then: vec![CStmt::Return(String::new())],
                other: vec![],
            },
            line("c->copy[n].port = port"),
            line("c->copy[n].rid = rid"),
            line("c->copy[n].kind = kind"),
            line("c->taken[n] = 0"),
        ];
        add.extend(self.copy_traits_cleared());
        add.push(line("c->count = n + 1"));
        super::c::print(&add, 1, &mut out);
        out.push_str("}\n\n");
        out.push_str(&self.copy_function_head(
            "Adds a copy of `kind` per member of `list` (a group or a session).",
            "void",
            &format!("{p}_copies_add_members"),
            &format!("struct {p}_copies *c, struct {p}_group *list, u32 kind"),
        ));
        let mut members = self.copy_function_prologue(&["c", "list"], "0");
        members.push(CStmt::For {
            head: format!("u32 i = 0; i < {MAX_REPLICAS} && i < list->count; i++"),
            body: vec![line(format!(
                "{p}_copies_add(c, list->members[i].port, list->members[i].rid, kind)"
            ))],
        });
        members.extend(self.copy_function_end());
        super::c::print(&members, 1, &mut out);
        out.push_str(&format!(
            "}}\n\n/* Sends the frame to every port of devmap `key`, with the plan's sequence\n * number in its metadata for the copies' egress programs. */\n\
             static __always_inline int {p}_copies_send(struct xdp_md *ctx, struct {p}_copies *c, u64 key)\n{{\n"
        ));
        let send = vec![
            line(format!(
                "void *ports = bpf_map_lookup_elem(&{}, &key)",
                copy_ports_map(self.prog)
            )),
            CStmt::If {
                cond: "!ports || !c->count".into(),
                then: vec![CStmt::Return("XDP_DROP /* no copy to make */".into())],
                other: vec![],
            },
            CStmt::If {
                cond: "bpf_xdp_adjust_meta(ctx, -(int)sizeof(u32))".into(),
                then: vec![CStmt::Return("XDP_DROP".into())],
                other: vec![],
            },
            line("u32 *meta = (u32 *)(long)ctx->data_meta"),
            CStmt::If {
                cond: "(void *)(meta + 1) > (void *)(long)ctx->data".into(),
                then: vec![CStmt::Return("XDP_DROP".into())],
                other: vec![],
            },
            line("*meta = c->seq"),
            CStmt::Return("bpf_redirect_map(ports, 0, BPF_F_BROADCAST)".into()),
        ];
        super::c::print(&send, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// `NAME_multicast` and, for a program that clones, `NAME_clone_i2e`.
    fn copy_send_functions(&self, r: &crate::ir::Replication) -> String {
        let p = self.c_prefix();
        let state = self.state_type();
        let groups = format!("{p}_mcast_groups");
        let mut out = format!(
            "/* One replica per member of group `group_id`, each to its port's egress. */\n\
             static __always_inline int {p}_multicast(struct xdp_md *ctx, struct {state} *st, u32 group_id, u32 offset, u8 parser_error)\n{{\n"
        );
        let body = vec![
            line(format!(
                "struct {p}_group *group = bpf_map_lookup_elem(&{groups}, &group_id)"
            )),
            CStmt::If {
                cond: "!group".into(),
                then: vec![CStmt::Return("XDP_DROP".into())],
                other: vec![],
            },
            line(format!(
                "struct {p}_copies *c = {p}_copies_begin(st, offset, parser_error)"
            )),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("XDP_DROP".into())],
                other: vec![],
            },
            line(format!("{p}_copies_add_members(c, group, {REPLICA})")),
            CStmt::Return(format!("{p}_copies_send(ctx, c, group_id)")),
        ];
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        if let Some(clone) = self.xdp_clone() {
            out.push_str(&self.clone_send_function(clone, r));
        }
        out
    }

    /// `NAME_clone_i2e`: the session's clones, then what ingress decided
    /// for the packet itself (dropped, multicast or sent to its port).
    fn clone_send_function(&self, clone: &CloneI2e, r: &crate::ir::Replication) -> String {
        let p = self.c_prefix();
        let (clones, planned) = match self.xdp_clones_before_resubmit() {
            Some(_) => (self.clones_resumed_or_planned(clone), ", u32 planned"),
            None => (self.clones_planned(clone), ""),
        };
        let mut body = vec![line(format!("u32 group_id = {}", self.expr(&r.group)))];
        body.extend(clones);
        body.extend(self.packet_fate());
        let mut out = format!(
            "/* Clone I2E: the packet as received to each member of its session, and the\n * packet itself as ingress decided, all through the session's devmap\n * (-1: no such session, so no clone). */\n\
             static __always_inline int {p}_clone_i2e(struct xdp_md *ctx, struct {} *st, u32 offset, u8 parser_error{planned})\n{{\n",
            self.state_type()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// A plan begun with the clones of session `clone.session`, in `c`
    /// with `session_id`.
    pub(super) fn clones_planned(&self, clone: &CloneI2e) -> Vec<CStmt> {
        let p = self.c_prefix();
        let mut planned = vec![line(format!(
            "u32 session_id = {}",
            self.expr(&clone.session)
        ))];
        planned.extend(self.session_of_id());
        planned.extend([
            line(format!(
                "struct {p}_copies *c = {p}_copies_begin(st, offset, parser_error)"
            )),
            CStmt::If {
                cond: "!c".into(),
                then: vec![CStmt::Return("XDP_DROP".into())],
                other: vec![],
            },
            line(format!("{p}_copies_add_members(c, session, {CLONE})")),
        ]);
        planned
    }

    /// `session`, the clone session `session_id` names; a session nobody
    /// made ends the function with -1.
    pub(super) fn session_of_id(&self) -> Vec<CStmt> {
        let (p, sessions) = (self.c_prefix(), super::replication::sessions_map(self.prog));
        vec![
            line(format!(
                "struct {p}_group *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
            )),
            CStmt::If {
                cond: "!session".into(),
                then: vec![CStmt::Return("-1 /* no such session */".into())],
                other: vec![],
            },
        ]
    }

    /// The packet's own copies in plan `c` (none when ingress dropped it,
    /// its group's replicas, or the original), then the plan sent through
    /// devmap `session_id`.
    fn packet_fate(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        let groups = format!("{p}_mcast_groups");
        let VerdictRule::Port { place, drop } = &self.prog.intrinsics.verdict else {
            return vec![];
        };
        let spec = self.expr(place);
        vec![
            line(format!(
                "struct {p}_group *group = bpf_map_lookup_elem(&{groups}, &group_id)"
            )),
            CStmt::If {
                cond: format!("{spec} == {drop}"),
                then: vec![CStmt::Comment(
                    "ingress dropped the packet: only its clones leave".into(),
                )],
                other: vec![CStmt::If {
                    cond: "group_id != 0".into(),
                    then: vec![CStmt::If {
                        cond: "group".into(),
                        then: vec![line(format!("{p}_copies_add_members(c, group, {REPLICA})"))],
                        other: vec![],
                    }],
                    other: vec![line(format!("{p}_copies_add(c, {spec}, 0, {ORIGINAL})"))],
                }],
            },
            CStmt::Return(format!(
                "{p}_copies_send(ctx, c, {}ULL | session_id)",
                p4bpf_layout::SESSION_KEY
            )),
        ]
    }

    /// `NAME_copy_claim`, finding the copy a frame is, and
    /// `NAME_copy_state`, making that copy's state.
    fn copy_claim_functions(&self, r: &crate::ir::Replication) -> String {
        let p = self.c_prefix();
        let state = self.state_type();
        let ports = super::port_map(self.prog).unwrap_or_default();
        let mut out = format!(
            "/* The first copy of the plan not yet taken whose port is the frame's\n * interface (taken now), or {MAX_COPIES} when none is. */\n\
             static __always_inline u32 {p}_copy_claim(struct xdp_md *ctx, struct {p}_copies *c)\n{{\n"
        );
        let claim = vec![
            CStmt::For {
                head: format!("u32 i = 0; i < {MAX_COPIES} && i < c->count; i++"),
                body: vec![
                    line("u32 port = c->copy[i].port"),
                    line(format!(
                        "u32 *ifindex = bpf_map_lookup_elem(&{ports}, &port)"
                    )),
                    CStmt::If {
                        cond: "!c->taken[i] && ifindex && *ifindex == ctx->egress_ifindex".into(),
                        then: vec![line("c->taken[i] = 1"), CStmt::Return("i".into())],
                        other: vec![],
                    },
                ],
            },
            CStmt::Return(MAX_COPIES.to_string()),
        ];
        super::c::print(&claim, 1, &mut out);
        out.push_str("}\n\n");
        let port = self.prog.intrinsics.output_port.as_ref();
        let port = port.map(|e| self.lvalue(e)).unwrap_or_default();
        let mut make = vec![line("u32 port = c->copy[i].port")];
        make.extend(self.psa_clone_state());
        make.extend(self.xdp_clone_e2e_state());
        if self.xdp_clone().is_some() {
            out.push_str(&self.clone_state_function());
            make.push(CStmt::If {
                cond: format!("c->copy[i].kind == {CLONE}"),
                then: vec![
                    line(format!(
                        "{p}_clone_state(st, &c->{}, port)",
                        self.cloning_pass_state()
                    )),
                    CStmt::Return(String::new()),
                ],
                other: vec![],
            });
        }
        make.extend([
            self.copy_state_line("st", "&c->state"),
            line(format!("{port} = port")),
            CStmt::If {
                cond: format!("c->copy[i].kind == {REPLICA}"),
                then: vec![
                    line(format!("{} = c->copy[i].rid", self.lvalue(&r.replica_id))),
                    line(format!(
                        "{} = {}",
                        self.lvalue(&r.instance_type),
                        r.replica_instance
                    )),
                ],
                other: vec![],
            },
        ]);
        out.push_str(&format!(
            "/* Copy `i`'s state: the packet's, with the copy's port (and replica id),\n * or a clone's. */\n\
             static __always_inline void {p}_copy_state(struct {state} *st, struct {p}_copies *c, u32 i)\n{{\n"
        ));
        let guarded = vec![
            CStmt::If {
                cond: format!("i >= {MAX_COPIES}"),
                then: vec![CStmt::Return(String::new())],
                other: vec![],
            },
            CStmt::Block(make),
        ];
        super::c::print(&guarded, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// The start of `ENTRY_egress` at XDP: the frame's plan and its copy
    /// found (a frame whose slot a later packet took, or that no copy is
    /// for, is dropped), the copy's state made.
    pub(super) fn xdp_egress_prologue(&self) -> Vec<CStmt> {
        let p = self.c_prefix();
        let state = self.state_type();
        let drop = |why: &str| CStmt::Return(format!("XDP_DROP /* {why} */"));
        let mut body = vec![
            line("u32 zero = 0"),
            line(format!(
                "u32 *last = bpf_map_lookup_elem(&{p}_copy_seq, &zero)"
            )),
            line(format!(
                "struct {state} *st = bpf_map_lookup_elem(&{p}_copy_work, &zero)"
            )),
            CStmt::If {
                cond: "!last || !st".into(),
                then: vec![drop("no scratch")],
                other: vec![],
            },
            CStmt::Comment(
                "generic XDP keeps no metadata, but runs the copies' egress at once".into(),
            ),
            line("u32 *meta = (u32 *)(long)ctx->data_meta"),
            line("u32 seq = (void *)(meta + 1) <= (void *)(long)ctx->data ? *meta : *last"),
            line(format!("u32 slot = seq % {RING}")),
            line(format!(
                "struct {p}_copies *c = bpf_map_lookup_elem(&{p}_copy_ring, &slot)"
            )),
            CStmt::If {
                cond: "!c || c->seq != seq".into(),
                then: vec![drop("its slot was taken by a later packet")],
                other: vec![],
            },
            line(format!("u32 i = {p}_copy_claim(ctx, c)")),
            CStmt::If {
                cond: format!("i >= {MAX_COPIES}"),
                then: vec![drop("a port no copy of this packet is for")],
                other: vec![],
            },
            line(format!("{p}_copy_state(st, c, i)")),
        ];
        body.extend(self.psa_clone_restore());
        body.extend(self.xdp_e2e_restore_call());
        body.extend(self.xdp_clone_traits_applied());
        if self.prog.arch == crate::ir::Arch::Psa {
            body.extend(self.xdp_egressed_original());
            return body;
        }
        body.extend([
            line("u8 *pkt = (u8 *)(long)ctx->data"),
            line("u8 *pkt_end = (u8 *)(long)ctx->data_end"),
            line("u32 offset = c->offset"),
            line("u8 parser_error = c->parser_error"),
            line("(void)parser_error"),
        ]);
        body.extend(self.xdp_egressed_original());
        body.extend(self.reparse_on_copy(&format!("c->copy[i].kind == {CLONE}")));
        body
    }
}
