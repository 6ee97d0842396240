//! PSA's resubmission ([`crate::ir::Resubmit`]), inline: the entry
//! function counts passes from a label before the architecture's inputs;
//! after the ingress deparser's body, before it writes the packet (it
//! rebuilds, so the bytes are still those received), a packet ingress
//! resubmits has its state reset but the resubmit metadata, the
//! RESUBMIT packet path, and goes back to that label. A bound on the
//! passes keeps the verifier's loop finite and a program from looping.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{Resubmit, Step};

/// The label a resubmitted packet goes back to.
const AGAIN: &str = "resubmit";

impl Emitter<'_> {
    fn resubmission(&self) -> Option<&Resubmit> {
        self.prog.intrinsics.resubmit.as_ref()
    }

    /// Before the architecture's inputs: the pass counter and the label.
    pub fn resubmit_entry(&self) -> Vec<CStmt> {
        if self.resubmission().is_none() {
            return vec![];
        }
        vec![line("u32 resubmits = 0"), CStmt::Label(AGAIN.into())]
    }

    /// After the ingress deparser's body: another pass when ingress asks.
    pub fn resubmit_check(&self, deparser: usize) -> Vec<CStmt> {
        let Some(r) = self.resubmission() else {
            return vec![];
        };
        let first = self.prog.pipeline.iter().find_map(|s| match s {
            Step::Deparse(i) => Some(*i),
            _ => None,
        });
        if first != Some(deparser) {
            return vec![];
        }
        let mut again = vec![
            CStmt::If {
                cond: format!("resubmits >= {}", Resubmit::MAX_PASSES),
                then: vec![CStmt::Return(format!(
                    "{} /* resubmitted too often */",
                    self.target.drop()
                ))],
                other: vec![],
            },
            line("resubmits++"),
        ];
        let kept = r.kept.as_ref().map(|k| self.lvalue(k));
        if let Some(kept) = &kept {
            again.push(line(format!("u8 kept[sizeof({kept})]")));
            again.push(line(format!(
                "__builtin_memcpy(kept, &{kept}, sizeof(kept))"
            )));
        }
        again.push(CStmt::Comment(
            "every variable as a new packet has it, but the resubmit metadata".into(),
        ));
        again.extend(self.reset_state());
        if let Some(kept) = &kept {
            again.push(line(format!(
                "__builtin_memcpy(&{kept}, kept, sizeof(kept))"
            )));
        }
        for path in &r.packet_paths {
            again.push(line(format!("{} = {}", self.lvalue(path), r.path)));
        }
        again.extend([
            line("offset = 0"),
            line("parser_error = 0"),
            CStmt::Goto(AGAIN.into()),
        ]);
        vec![CStmt::If {
            cond: self.expr(&r.flag),
            then: again,
            other: vec![],
        }]
    }
}
