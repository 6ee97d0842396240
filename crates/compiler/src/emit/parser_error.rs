//! What a parser that keeps its error (PSA's, v1model's) does at `reject`.
//!
//! PSA: an explicit `transition reject` sets no error, so ingress could
//! not tell the packet from an accepted one; PSA-eBPF drops it there
//! (its PTF VerifyPSATest expects that), and so does p4bpf. Every other
//! error goes on to the control in `parser_error`.
//!
//! Every `reject` already lands on one label, but each path arrives with
//! its own bytes-parsed constant and its own checked packet range, so
//! the verifier would walk the controls once per reject site. At the
//! label both are forgotten: `offset` goes out to the state and comes
//! back as a number the verifier cannot know (a `volatile` map load),
//! and the packet pointers are read again. The paths then arrive as one
//! state, and that state covers the accept paths too.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{Arch, Outcome};

/// The state field `offset` passes through at a parser error.
pub const REJECTED_AT: &str = "p4bpf_rejected_at";

impl Emitter<'_> {
    /// Whether the state needs [`REJECTED_AT`].
    pub fn keeps_parser_errors(&self) -> bool {
        !self.prog.intrinsics.parser_errors.is_empty()
    }

    /// First at `reject`: PSA drops a packet rejected with no error.
    pub fn explicit_reject(&self) -> Vec<CStmt> {
        if self.prog.arch != Arch::Psa {
            return vec![];
        }
        vec![CStmt::If {
            cond: "parser_error == 0 /* NoError: an explicit transition to reject */".into(),
            then: self.outcome(Outcome::Drop),
            other: vec![],
        }]
    }

    /// After a kept parser error is stored: the join described above.
    pub fn join_error_paths(&self) -> Vec<CStmt> {
        let field = format!("*(volatile u16 *)&st->{REJECTED_AT}");
        let mut out = vec![
            CStmt::Comment("one state for every error path: forget the offset's constant and the checked range".into()),
            line(format!("{field} = offset")),
            line(format!("offset = {field}")),
        ];
        out.extend(self.target.reload_pointers().map(line));
        out
    }
}
