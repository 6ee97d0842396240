//! PNA's `mirror_packet` at TC ([`crate::ir::Mirror`]). After the main
//! deparser has written the packet, each mirror slot the program called
//! sends one copy of the packet as written (PNA's POST_MODIFY contents)
//! to every member port of its session, through `bpf_clone_redirect` to
//! the port's interface; then the packet itself goes where the program
//! sent it, or is dropped. PNA has no egress pipeline, so a copy leaves
//! as it is. A session the control plane never made, and a member port
//! with no interface, make no copy.
//!
//! Sessions live in `NAME_mirror_sessions`, laid out as clone sessions
//! (`p4bpf clone set`, STF `mirroring_add`); a slot's variable holds its
//! session plus one, 0 when the slot was not called this pass.

use super::c::{line, CStmt};
use super::replication::MAX_REPLICAS;
use super::Emitter;
use crate::ir::{Program, Step};
use p4bpf_layout::Hook;

/// Sessions one program can hold.
pub(super) const MAX_SESSIONS: u32 = 1024;

pub(super) fn sessions_map(prog: &Program) -> String {
    format!("{}_mirror_sessions", super::c_identifier(&prog.name))
}

/// The control plane's view of the mirror sessions, for programs that
/// mirror; at XDP, with the sessions' devmaps and their program.
pub fn mirror_sessions_description(
    prog: &Program,
    hook: Hook,
) -> Option<p4bpf_layout::MirrorSessions> {
    prog.intrinsics.mirror.as_ref()?;
    let xdp = hook == Hook::Xdp;
    Some(p4bpf_layout::MirrorSessions {
        map: sessions_map(prog),
        max_members: MAX_REPLICAS,
        copy_ports_map: xdp.then(|| super::xdp_pna_mirror::mirror_ports_map(prog)),
        copy_entry: xdp.then(|| super::replication::egress_entry_name(prog, hook)),
    })
}

impl Emitter<'_> {
    fn mirrors(&self) -> bool {
        self.prog.intrinsics.mirror.is_some() && self.hook == Hook::Tc
    }

    /// After the main deparser wrote the packet (each pass's own): one
    /// call per slot the program called.
    pub(super) fn pna_mirror_call(&self, deparser: usize) -> Vec<CStmt> {
        let Some(mirror) = self
            .prog
            .intrinsics
            .mirror
            .as_ref()
            .filter(|_| self.mirrors())
        else {
            return vec![];
        };
        if !self.is_last_deparser(deparser) {
            return vec![];
        }
        let ctx = self.target.context();
        let p = self.c_prefix();
        mirror
            .slots
            .iter()
            .map(|slot| {
                let slot = self.expr(slot);
                CStmt::If {
                    cond: slot.clone(),
                    then: vec![line(format!("{p}_mirror({ctx}, {slot} - 1)"))],
                    other: vec![],
                }
            })
            .collect()
    }

    /// Whether `deparser` is the main deparser, the pipeline's last.
    pub(super) fn is_last_deparser(&self, deparser: usize) -> bool {
        let last = self.prog.pipeline.iter().rev().find_map(|s| match s {
            Step::Deparse(i) => Some(*i),
            _ => None,
        });
        last == Some(deparser)
    }

    /// The sessions map, laid out as clone sessions.
    pub(super) fn mirror_sessions_definition(&self) -> String {
        let (p, sessions) = (self.c_prefix(), sessions_map(self.prog));
        format!(
            "/* Mirror sessions (`p4bpf clone`, `mirroring_add`): session -> its members' ports. */\n\
             struct {p}_mirror_member {{\n    u32 port;\n    u32 instance;\n}};\n\
             struct {p}_mirror_session {{\n    u32 count;\n    struct {p}_mirror_member members[{MAX_REPLICAS}];\n}};\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_HASH);\n    __type(key, u32);\n    __type(value, struct {p}_mirror_session);\n    __uint(max_entries, {MAX_SESSIONS});\n}} {sessions} SEC(\".maps\");\n\n"
        )
    }

    /// The sessions map and `NAME_mirror`, which makes one session's copies.
    pub(super) fn pna_mirror_definitions(&self) -> String {
        if !self.mirrors() {
            return String::new();
        }
        let p = self.c_prefix();
        let (sessions, ports) = (
            sessions_map(self.prog),
            super::port_map(self.prog).unwrap_or_default(),
        );
        let body = vec![
            line(format!(
                "struct {p}_mirror_session *session = bpf_map_lookup_elem(&{sessions}, &session_id)"
            )),
            CStmt::If {
                cond: "!session".into(),
                then: vec![CStmt::Return("0 /* no such session: no copy */".into())],
                other: vec![],
            },
            CStmt::For {
                head: format!("u32 i = 0; i < {MAX_REPLICAS} && i < session->count; i++"),
                body: vec![
                    line("u32 port = session->members[i].port"),
                    line(format!(
                        "u32 *ifindex = bpf_map_lookup_elem(&{ports}, &port)"
                    )),
                    CStmt::If {
                        cond: match self.mtu_checked {
                            // A copy that outgrew its port is not sent (`emit/mtu.rs`).
                            true => "ifindex && !p4bpf_over_mtu(skb, *ifindex)".into(),
                            false => "ifindex".into(),
                        },
                        then: vec![line("bpf_clone_redirect(skb, *ifindex, 0)")],
                        other: vec![],
                    },
                ],
            },
            CStmt::Return("0".into()),
        ];
        let mut out = self.mirror_sessions_definition();
        out.push_str(&format!(
            "/* mirror_packet: one copy of the packet as the main deparser wrote it to each\n * port of session `session_id`, as it is (PNA has no egress). A global\n * function, so the verifier checks it once for every slot. */\n\
             __attribute__((noinline)) int {p}_mirror(struct __sk_buff *skb, u32 session_id)\n{{\n"
        ));
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }
}
