//! v1model's clones at TC ([`crate::ir::CloneI2e`] in `clone_i2e` and
//! `clone_e2e`), on the multicast copies' machinery
//! ([`super::replication`]): one copy per member of the clone session,
//! through `bpf_clone_redirect` to the member's port, where the egress
//! program runs egress on it with the state handed over in the mailbox.
//!
//! The copy's state is the packet's with every variable reset but the
//! ingress port, the packet length and the chosen field list; its
//! instance type says which clone it is and its egress port is the
//! member's. An I2E clone, made at the checkpoint after ingress, is the
//! packet as received (a program that clones rebuilds its headers in the
//! deparser), and the egress program parses it again (`reparse`), as
//! BMv2 does. An E2E clone, made before the deparser after egress, keeps
//! the headers as egress left them: the copy's deparser writes them. A
//! copy's own egress makes no E2E clone (the mailbox holds one copy).

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{CloneI2e, Step, VarStorage};
use p4bpf_layout::Hook;

/// Which clone a function makes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    IngressToEgress,
    EgressToEgress,
}

impl Kind {
    fn function(self) -> &'static str {
        match self {
            Kind::IngressToEgress => "clone_i2e",
            Kind::EgressToEgress => "clone_e2e",
        }
    }

    /// The arguments of a call of the member function for `port`.
    fn member_args(self, port: &str) -> String {
        match self {
            Kind::IngressToEgress => format!("skb, st, {port}"),
            Kind::EgressToEgress => format!("skb, st, {port}, offset, parser_error"),
        }
    }
}

impl Emitter<'_> {
    fn v1model_clone(&self, kind: Kind) -> Option<&CloneI2e> {
        let i = &self.prog.intrinsics;
        let clone = match kind {
            Kind::IngressToEgress => i.clone_i2e.as_ref(),
            Kind::EgressToEgress => i.clone_e2e.as_ref(),
        };
        clone.filter(|c| c.field_lists.is_some() && i.replication.is_some())
    }

    /// Whether the egress program parses an I2E clone again.
    pub(super) fn reparses_clones(&self) -> bool {
        self.v1model_clone(Kind::IngressToEgress).is_some()
    }

    /// At the checkpoint, first of all (BMv2 clones before it
    /// resubmits, multicasts or drops): the I2E clones ingress asked for.
    pub(super) fn clone_at_end_of_ingress(&self) -> Vec<CStmt> {
        if self.hook == Hook::Xdp {
            return self.xdp_clone_check();
        }
        self.clone_call(Kind::IngressToEgress)
    }

    /// Before the deparser (and the drop port): the E2E clones egress
    /// asked for; none from a copy's egress.
    pub(super) fn clone_at_end_of_egress(&self) -> Vec<CStmt> {
        if self.hook == Hook::Xdp {
            return self.xdp_v1model_clone_e2e_check();
        }
        if self.on_copy.get() {
            return vec![];
        }
        self.clone_call(Kind::EgressToEgress)
    }

    fn clone_call(&self, kind: Kind) -> Vec<CStmt> {
        let Some(clone) = self.v1model_clone(kind) else {
            return vec![];
        };
        vec![CStmt::If {
            cond: self.expr(&clone.flag),
            then: vec![line(format!(
                "{}_{}(skb, st, offset, parser_error)",
                self.c_prefix(),
                kind.function()
            ))],
            other: vec![],
        }]
    }

    /// The functions making the clones the program asks for.
    pub(super) fn v1model_clone_definitions(&self) -> String {
        let kinds = [Kind::IngressToEgress, Kind::EgressToEgress];
        if kinds.iter().all(|k| self.v1model_clone(*k).is_none()) {
            return String::new();
        }
        let mut out = self.sessions_map_definition();
        for kind in kinds {
            out.push_str(&self.clone_function(kind));
        }
        out
    }

    /// The clone sessions map (`mirroring_add` fills it), read by v1model's
    /// and PSA's clones. A session starts as a group does, so code that
    /// reads only members may read it as one; the traits come after.
    pub(super) fn sessions_map_definition(&self) -> String {
        use super::replication::MAX_REPLICAS;
        let (p, sessions) = (self.c_prefix(), super::replication::sessions_map(self.prog));
        format!(
            "/* Clone sessions (`p4bpf clone`, `mirroring_add`): session -> its members' ports,\n * laid out as a group, then each member's copy's class of service and length. */\n\
             struct {p}_copy_traits {{\n    u32 class_of_service; /* the copy's skb->priority */\n    u32 packet_length_bytes; /* the copy is cut to this length; 0: whole */\n}};\n\
             struct {p}_session {{\n    u32 count;\n    struct {p}_member members[{MAX_REPLICAS}];\n    struct {p}_copy_traits traits[{MAX_REPLICAS}];\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH);\n    __type(key, u32);\n    __type(value, struct {p}_session);\n    __uint(max_entries, {});\n}} {sessions} SEC(\".maps\");\n\n",
            super::replication::MAX_GROUPS
        )
    }

    fn clone_function(&self, kind: Kind) -> String {
        let Some(clone) = self.v1model_clone(kind) else {
            return String::new();
        };
        let p = self.c_prefix();
        let mut body = vec![
            line("u32 zero = 0"),
            line(format!("u32 session_id = {}", self.expr(&clone.session))),
        ];
        body.extend(self.session_and_mailbox(CStmt::Return(String::new())));
        body.extend([
            CStmt::For {
                head: format!(
                    "u32 i = 0; i < {} && i < session->count; i++",
                    super::replication::MAX_REPLICAS
                ),
                body: vec![line(format!(
                    "{p}_{}_member({})",
                    kind.function(),
                    kind.member_args("session->members[i].port")
                ))],
            },
            line("skb->cb[0] = 0"),
        ]);
        let what = match kind {
            Kind::IngressToEgress => {
                "Clone I2E: one copy of the packet as received (parsed again by egress)"
            }
            Kind::EgressToEgress => {
                "Clone E2E: one copy of the packet with the headers egress left"
            }
        };
        let mut out = format!(
            "/* {what}\n * per member of the clone session, each to its port's egress program. */\n\
             static __always_inline void {p}_{}(struct __sk_buff *skb, struct {} *st, u32 offset, u8 parser_error)\n{{\n",
            kind.function(),
            self.state_type()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        self.member_function(clone, kind) + &out
    }

    /// The copy for one member as a global function: the verifier checks
    /// it once, not once per member and per path of its caller (a clone
    /// loop inlined into a big program went past the verifier's 1M).
    /// It takes only what it uses: clang passes nothing in an unused
    /// argument's register, which the verifier refuses.
    fn member_function(&self, clone: &CloneI2e, kind: Kind) -> String {
        let chosen = clone.field_lists.as_ref().map(|l| self.expr(&l.chosen));
        let mailbox = self.mailbox();
        let mut body = vec![
            line("u32 zero = 0"),
            line(format!(
                "struct {mailbox} *mailbox = bpf_map_lookup_elem(&{mailbox}, &zero)"
            )),
            CStmt::If {
                cond: "!st || !mailbox".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line(format!("u16 field_list = {}", chosen.unwrap_or_default())),
        ];
        body.extend(self.member_clone(clone, kind));
        body.push(CStmt::Return("0".into()));
        let extra = match kind {
            Kind::IngressToEgress => "",
            Kind::EgressToEgress => ", u32 offset, u32 parser_error",
        };
        let mut out = format!(
            "__attribute__((noinline)) int {}_{}_member(struct __sk_buff *skb, struct {} *st, u32 port{extra})\n{{\n",
            self.c_prefix(),
            kind.function(),
            self.state_type()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// At XDP, `NAME_clone_state`: an I2E clone's state (`copy`) made
    /// from the packet's (`st`), for a copy out of `port`.
    pub(super) fn clone_state_function(&self) -> String {
        self.clone_state_function_of(
            Kind::IngressToEgress,
            "clone_state",
            "An I2E clone's state: the packet's, reset but for what a clone keeps.",
        )
    }

    /// At XDP, `NAME_clone_e2e_state`: an E2E clone's state (`copy`) made
    /// from the packet's as its egress left it (`st`), for a copy out of
    /// `port`.
    pub(super) fn e2e_clone_state_function(&self) -> String {
        self.clone_state_function_of(
            Kind::EgressToEgress,
            "clone_e2e_state",
            "An E2E clone's state: the packet's as egress left it, reset but for what a\n * clone keeps.",
        )
    }

    /// `NAME_{name}`, the state of a clone of `kind` (none when the
    /// program makes no such clone), under C comment `about`.
    fn clone_state_function_of(&self, kind: Kind, name: &str, about: &str) -> String {
        let Some(clone) = self.v1model_clone(kind) else {
            return String::new();
        };
        let (p, state) = (self.c_prefix(), self.state_type());
        let chosen = clone.field_lists.as_ref().map(|l| self.expr(&l.chosen));
        let mut body = vec![
            line(format!("u16 field_list = {}", chosen.unwrap_or_default())),
            self.copy_state_line("copy", "st"),
        ];
        body.extend(self.copy_state(clone, kind));
        let mut out = format!(
            "/* {about} */\n\
             static __always_inline void {p}_{name}(struct {state} *copy, struct {state} *st, u32 port)\n{{\n"
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// One session member's copy: the state copied into the mailbox and
    /// reset as the clone's kind says, handed to the member port's egress.
    fn member_clone(&self, clone: &CloneI2e, kind: Kind) -> Vec<CStmt> {
        let ports = super::port_map(self.prog).unwrap_or_default();
        let mut copy = vec![
            line(format!(
                "u32 *ifindex = bpf_map_lookup_elem(&{ports}, &port)"
            )),
            CStmt::If {
                cond: "!ifindex".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line(format!(
                "struct {} *copy = &mailbox->state",
                self.state_type()
            )),
            self.copy_state_line("copy", "st"),
        ];
        copy.extend(self.copy_state(clone, kind));
        let (offset, parser_error, reparse) = match kind {
            Kind::IngressToEgress => ("0", "0", 1),
            Kind::EgressToEgress => ("offset", "parser_error", 0),
        };
        copy.extend([
            line(format!("mailbox->offset = {offset}")),
            line(format!("mailbox->parser_error = {parser_error}")),
        ]);
        if self.reparses_clones() {
            copy.push(line(format!("mailbox->reparse = {reparse}")));
        }
        copy.extend([
            line("mailbox->armed = 1"),
            line(format!("skb->cb[0] = {}", super::replication::COPY_MARK)),
            line("bpf_clone_redirect(skb, *ifindex, 0)"),
            line("mailbox->armed = 0"),
        ]);
        copy
    }

    /// The copy's state from the packet's (`st`): every variable reset
    /// (an E2E clone keeps the headers) but the ingress port, the packet
    /// length and the fields of the chosen list; its instance type and
    /// port.
    fn copy_state(&self, clone: &CloneI2e, kind: Kind) -> Vec<CStmt> {
        let in_copy = |place: String| match place.strip_prefix("st->") {
            Some(rest) => format!("copy->{rest}"),
            None => place,
        };
        let mut out = vec![line("copy->p4bpf_exit = 0")];
        for (id, v) in self.prog.vars.iter().enumerate() {
            let headers = id == self.prog.headers.index();
            if v.storage != VarStorage::State || (headers && kind == Kind::EgressToEgress) {
                continue;
            }
            self.reset(&v.ty, &format!("copy->{}", v.c_name), &mut out);
        }
        let i = &self.prog.intrinsics;
        for kept in [&i.ingress_port, &i.packet_length].into_iter().flatten() {
            let place = self.lvalue(kept);
            out.push(line(format!("{} = {place}", in_copy(place.clone()))));
        }
        for (field, indexes) in self.field_list_members_of(clone.field_lists.as_ref()) {
            let place = self.lvalue(field);
            out.push(CStmt::If {
                cond: super::v1model_passes::list_chosen(&indexes),
                then: vec![line(format!(
                    "__builtin_memcpy(&{}, &{place}, sizeof({place}))",
                    in_copy(place.clone())
                ))],
                other: vec![],
            });
        }
        out.push(line(format!(
            "{} = {}",
            in_copy(self.lvalue(&clone.packet_path)),
            clone.path
        )));
        if let Some(port) = &i.output_port {
            out.push(line(format!("{} = port", in_copy(self.lvalue(port)))));
        }
        out
    }

    /// In the egress program, before egress: an I2E clone (a copy for
    /// which `is_clone` holds) is parsed again from its first byte, as
    /// ingress's parser parsed it.
    pub(super) fn reparse_on_copy(&self, is_clone: &str) -> Vec<CStmt> {
        if !self.reparses_clones() {
            return vec![];
        }
        let Some(parse) = self
            .prog
            .pipeline
            .iter()
            .find(|s| matches!(s, Step::Parse(_) | Step::ParseKeepingError(_)))
        else {
            return vec![];
        };
        let mut again = vec![line("offset = 0"), line("parser_error = 0")];
        again.extend(self.step_part(*parse, 0, None, None));
        vec![CStmt::If {
            cond: is_clone.into(),
            then: again,
            other: vec![],
        }]
    }
}
