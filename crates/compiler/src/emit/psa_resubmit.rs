//! PSA's resubmission and recirculation ([`crate::ir::Resubmit`]),
//! inline: the entry function counts passes from a label before the
//! architecture's inputs. After the ingress deparser's body, before it
//! writes the packet (it rebuilds, so the bytes are still those
//! received), a packet ingress resubmits goes back to that label; after
//! the last deparser has written the packet, one sent to the
//! recirculation port does too (from the egress function, by returning
//! [`RECIRCULATE_CODE`] to the entry function). Each time the state is
//! reset but the kept metadata, and the packet path says why. A bound
//! on the passes keeps the verifier's loop finite and a program from
//! looping.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{Arch, Resubmit, Step};

/// The label a packet goes back to for another pass.
const AGAIN: &str = "another_pass";

/// A local of the entry function: set once the packet has recirculated
/// (PSA), so that every later pass comes in on the recirculation port.
const RECIRCULATED: &str = "recirculated";

/// `PSA_PacketPath_t.RECIRCULATE`, the path of a recirculated pass.
const PSA_RECIRCULATE_PATH: u32 = 6;

/// psa.p4's `PSA_PORT_RECIRCULATE`.
const PSA_PORT_RECIRCULATE: u32 = 0xffff_fffa;

/// What the egress function returns for a packet to recirculate ("reci").
pub const RECIRCULATE_CODE: &str = "0x72656369";

impl Emitter<'_> {
    /// Before the architecture's inputs: the pass counter and the label.
    pub fn resubmit_entry(&self) -> Vec<CStmt> {
        let i = &self.prog.intrinsics;
        if i.resubmit.is_none() && i.recirculate.is_none() {
            return vec![];
        }
        // The pointers are read again on every pass: the last one may have
        // moved the bytes, and a pointer carried around the loop would
        // reach the verifier as arithmetic on it.
        let mut out = vec![line("u32 passes = 0")];
        out.extend(self.xdp_planned_local());
        out.extend(self.xdp_e2e_pending_reset());
        if self.recirculation_port().is_some() {
            out.push(line(format!("u8 {RECIRCULATED} = 0")));
        }
        out.push(CStmt::Label(AGAIN.into()));
        out.extend(self.target.reload_pointers().map(line));
        out
    }

    /// After deparser `deparser`'s body (before it writes the packet):
    /// another pass when ingress resubmits; after it: when the packet
    /// goes to the recirculation port.
    pub fn resubmit_check(&self, deparser: usize) -> Vec<CStmt> {
        let i = &self.prog.intrinsics;
        let deparsers: Vec<usize> = self
            .prog
            .pipeline
            .iter()
            .filter_map(|s| match s {
                Step::Deparse(i) => Some(*i),
                _ => None,
            })
            .collect();
        match &i.resubmit {
            Some(r) if deparsers.first() == Some(&deparser) && self.ingress_deparses() => {
                self.pass_when(r)
            }
            _ => vec![],
        }
    }

    /// After the last deparser wrote the packet: recirculation.
    pub fn recirculate_check(&self, deparser: usize) -> Vec<CStmt> {
        let Some(r) = &self.prog.intrinsics.recirculate else {
            return vec![];
        };
        let last = self.prog.pipeline.iter().rev().find_map(|s| match s {
            Step::Deparse(i) => Some(*i),
            _ => None,
        });
        // A multicast copy's egress program has no pass to go back to:
        // the copy leaves instead.
        if last != Some(deparser) || self.on_copy.get() {
            return vec![];
        }
        if self.in_egress_function {
            return vec![CStmt::If {
                cond: self.expr(&r.flag),
                then: vec![CStmt::Return(format!(
                    "{RECIRCULATE_CODE} /* recirculate */"
                ))],
                other: vec![],
            }];
        }
        self.pass_when(r)
    }

    /// In the entry function, on the egress function's recirculation
    /// code: another pass.
    pub fn recirculation(&self) -> Option<Vec<CStmt>> {
        let r = self.prog.intrinsics.recirculate.as_ref()?;
        Some(self.another_pass(r))
    }

    pub(super) fn pass_when(&self, r: &Resubmit) -> Vec<CStmt> {
        vec![CStmt::If {
            cond: self.expr(&r.flag),
            then: self.another_pass(r),
            other: vec![],
        }]
    }

    /// Resets the state but `r`'s kept metadata, sets the packet path and
    /// goes back.
    fn another_pass(&self, r: &Resubmit) -> Vec<CStmt> {
        let mut again = vec![
            CStmt::If {
                cond: format!("passes >= {}", Resubmit::MAX_PASSES),
                then: vec![CStmt::Return(format!(
                    "{} /* another pass too many */",
                    self.target.drop()
                ))],
                other: vec![],
            },
            line("passes++"),
        ];
        again.extend(self.field_lists_saved(r));
        let kept = r.kept.as_ref().map(|k| self.lvalue(k));
        if let Some(kept) = &kept {
            again.push(line(format!("u8 kept[sizeof({kept})]")));
            again.push(line(format!(
                "__builtin_memcpy(kept, &{kept}, sizeof(kept))"
            )));
        }
        again.push(CStmt::Comment(
            "every variable as a new packet has it, but the kept metadata".into(),
        ));
        again.extend(self.reset_state());
        if let Some(kept) = &kept {
            again.push(line(format!(
                "__builtin_memcpy(&{kept}, kept, sizeof(kept))"
            )));
        }
        again.extend(self.field_lists_restored(r));
        for path in &r.packet_paths {
            again.push(line(format!("{} = {}", self.lvalue(path), r.path)));
        }
        if self.recirculation_port().is_some() && r.path == PSA_RECIRCULATE_PATH {
            again.push(line(format!("{RECIRCULATED} = 1")));
        }
        again.extend([
            line("offset = 0"),
            line("parser_error = 0"),
            CStmt::Goto(AGAIN.into()),
        ]);
        again
    }

    /// PSA's recirculation port, when the program recirculates: a
    /// recirculated pass comes in on it (psa.p4: `ingress_port` is
    /// `PSA_PORT_RECIRCULATE`), not on the interface the packet first
    /// came in on.
    fn recirculation_port(&self) -> Option<u32> {
        (self.prog.arch == Arch::Psa && self.prog.intrinsics.recirculate.is_some())
            .then_some(PSA_PORT_RECIRCULATE)
    }

    /// After the ingress port `port` is read from the interface: the
    /// recirculation port instead, on a recirculated pass.
    pub fn recirculated_ingress_port(&self, port: &str) -> Vec<CStmt> {
        match self.recirculation_port() {
            Some(number) => vec![CStmt::If {
                cond: RECIRCULATED.into(),
                then: vec![line(format!("{port} = {number:#x}U"))],
                other: vec![],
            }],
            None => vec![],
        }
    }
}
