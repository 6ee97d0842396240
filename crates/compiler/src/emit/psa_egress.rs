//! PSA's egress pipeline, inline after ingress ([`crate::lower`]'s
//! `psa_egress` frames it). The steps after the checkpoint run in a
//! function of their own, `NAME_psa_egress`, which the entry function
//! returns through: its parser's `accept` and `reject`, its controls'
//! labels and its `deparse_failed` are its own, so the egress parser can
//! parse the packet the ingress deparser wrote from byte 0, with its own
//! deparser rewriting it. Both deparsers rebuild the headers they emit:
//! an assignment cannot be written straight into the packet when the
//! same header type may be parsed twice, at two offsets. On the unicast
//! path the ingress deparser writes nothing and the egress parser takes
//! its headers from the state ([`super::psa_fuse`]).
//!
//! Why inline rather than a second program at TC egress (as PSA-eBPF,
//! and v1model's multicast copies here, do): it runs at XDP as well as
//! TC, it costs no second program run nor a hand-over of the state
//! through a map, and `BPF_PROG_TEST_RUN` sees the whole pipeline, so
//! STF runs in the kernel test egress too.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{Arch, Outcome, Program, Step};
use crate::midend::correspond::Shape;
use std::cell::{Cell, RefCell};

/// psa.p4's `PSA_PORT_CPU`: the host.
const PSA_PORT_CPU: u32 = 0xffff_fffd;

/// Where the egress steps start in a PSA program that runs its egress
/// pipeline: right after the checkpoint.
pub fn egress_start(prog: &Program) -> Option<usize> {
    if prog.arch != Arch::Psa {
        return None;
    }
    let checkpoint = prog.pipeline.iter().position(|s| *s == Step::Checkpoint)?;
    (checkpoint + 1 < prog.pipeline.len()).then_some(checkpoint + 1)
}

impl Emitter<'_> {
    fn egress_function_name(&self) -> String {
        format!("{}_psa_egress", self.c_prefix())
    }

    /// In the entry function, after the checkpoint: the egress pipeline
    /// decides the packet's fate.
    pub fn psa_egress_call(&self) -> Option<Vec<CStmt>> {
        egress_start(self.prog)?;
        let call = format!(
            "{}({}, st{})",
            self.egress_function_name(),
            self.target.context(),
            self.fuse_call_args(false)
        );
        let Some(again) = self.recirculation() else {
            return Some(vec![CStmt::Return(call)]);
        };
        let mut out = vec![
            line(format!("int verdict = {call}")),
            CStmt::If {
                cond: format!("verdict == {}", super::psa_resubmit::RECIRCULATE_CODE),
                then: again,
                other: vec![],
            },
        ];
        out.extend(self.xdp_round_dropped());
        out.push(CStmt::Return("verdict".into()));
        Some(out)
    }

    /// Before a PSA packet is sent out of `port`: one sent to
    /// `PSA_PORT_CPU` goes to the host's network stack instead (XDP_PASS,
    /// TC_ACT_OK), the way PSA-eBPF passes a packet to the kernel.
    pub fn psa_to_host(&self, port: &str) -> Vec<CStmt> {
        if self.prog.arch != Arch::Psa {
            return vec![];
        }
        vec![CStmt::If {
            cond: format!("{port} == {PSA_PORT_CPU:#x}U"),
            then: vec![CStmt::Return(format!(
                "{} /* PSA_PORT_CPU: the host's stack */",
                self.target.pass()
            ))],
            other: vec![],
        }]
    }

    /// A checkpoint for a code verdict (PSA's `ostd.drop`): drops the
    /// packet unless its code is one whose outcome is not a drop, then
    /// hands a packet with a multicast group to the copies.
    pub fn code_checkpoint(
        &self,
        place: &crate::ir::Expr,
        outcomes: &[(u32, Outcome)],
    ) -> Vec<CStmt> {
        let code = self.expr(place);
        let kept: Vec<String> = outcomes
            .iter()
            .filter(|(_, o)| *o != Outcome::Drop)
            .map(|(c, _)| format!("{code} != {c}"))
            .collect();
        // A frame whose copies are planned (a PSA clone at XDP) leaves as them.
        let mut out = self.xdp_clone_pending();
        if kept.is_empty() {
            out.push(CStmt::Return(self.target.drop().into()));
            return out;
        }
        let mut dropped = self.xdp_e2e_pending_on_drop();
        dropped.push(CStmt::Return(format!(
            "{} /* ingress dropped it */",
            self.target.drop()
        )));
        out.push(CStmt::If {
            cond: kept.join(" && "),
            then: dropped,
            other: vec![],
        });
        out.extend(self.skb_priority());
        out.extend(self.multicast_check());
        out
    }

    /// In `ENTRY_egress`, on a copy (multicast, clone): the egress
    /// pipeline, whose packet leaves by the port it was copied to unless
    /// egress drops it (a copy is not recirculated: it leaves too).
    pub fn psa_egress_on_copy(&self) -> Option<Vec<CStmt>> {
        if self.prog.arch != Arch::Psa {
            return None;
        }
        let (pass, drop) = (self.target.pass(), self.target.drop());
        if egress_start(self.prog).is_none() {
            let mut out = self.copy_mtu_drop(None);
            out.push(CStmt::Return(format!(
                "{pass} /* out of the port the copy was sent to */"
            )));
            return Some(out);
        }
        // At XDP the egress's own verdict is a redirect, which a devmap
        // program cannot return: its XDP_PASS sends the copy on.
        let dropped = match self.hook {
            p4bpf_layout::Hook::Tc => format!("verdict == {drop}"),
            p4bpf_layout::Hook::Xdp => format!("verdict == {drop} || verdict == XDP_ABORTED"),
        };
        let mut out = vec![line(format!(
            "int verdict = {}({}, st{})",
            self.egress_function_name(),
            self.target.context(),
            self.fuse_call_args(true)
        ))];
        out.extend(self.copy_mtu_drop(Some(&dropped)));
        out.push(CStmt::Return(format!(
            "{dropped} ? {drop} : {pass} /* out of the port the copy was sent to */"
        )));
        Some(out)
    }
}

/// `NAME_psa_egress`: the egress steps of `e`'s program, printed by an
/// emitter over the program cut to those steps (so that its deparser is
/// the egress deparser) which shares `e`'s analyses and helpers.
pub fn egress_function(e: &mut Emitter) -> String {
    let Some(start) = egress_start(e.prog) else {
        return String::new();
    };
    let mut egress_prog = Program {
        pipeline: e.prog.pipeline.get(start..).unwrap_or_default().to_vec(),
        ..e.prog.clone()
    };
    // Egress neither clones from ingress nor resubmits.
    egress_prog.intrinsics.clone_i2e = None;
    egress_prog.intrinsics.resubmit = None;
    let mut egress = Emitter {
        prog: &egress_prog,
        hook: e.hook,
        target: e.target,
        table_layouts: std::mem::take(&mut e.table_layouts),
        helpers: RefCell::new(std::mem::take(e.helpers.get_mut())),
        facts: e.facts.clone(),
        writes: std::mem::take(&mut e.writes),
        reads: std::mem::take(&mut e.reads),
        plan: Shape::Rebuilt,
        labels: Cell::new(e.labels.get()),
        exit_pending: Cell::new(false),
        split: std::mem::take(&mut e.split),
        instrument: e.instrument,
        stages: super::stages::Stages::default(),
        in_egress_function: true,
        parser_loops: RefCell::new(std::mem::take(e.parser_loops.get_mut())),
        loop_rounds: RefCell::new(std::mem::take(e.loop_rounds.get_mut())),
        on_copy: Cell::new(false),
        missed_table: Cell::new(None),
        placement: Default::default(),
        fused_ingress: super::psa_fuse::plan(e.prog, &e.caches),
        // A reset here (recirculation) resets every field.
        skipped_resets: Default::default(),
        atomic_cells: RefCell::default(),
        caches: e.caches.clone(),
        output_record: e.output_record.clone(),
        action_calls: RefCell::new(std::mem::take(e.action_calls.get_mut())),
        mtu_checked: e.mtu_checked,
    };
    let mut text = match &egress.fused_ingress {
        Some(fusion) => egress.fuse_write_function(fusion),
        None => String::new(),
    };
    text.push_str(&egress.function_text(&e.state_type(), &e.egress_function_name()));
    e.table_layouts = std::mem::take(&mut egress.table_layouts);
    *e.helpers.get_mut() = std::mem::take(egress.helpers.get_mut());
    *e.action_calls.get_mut() = std::mem::take(egress.action_calls.get_mut());
    e.writes = std::mem::take(&mut egress.writes);
    e.reads = std::mem::take(&mut egress.reads);
    e.labels.set(egress.labels.get());
    e.split = std::mem::take(&mut egress.split);
    *e.parser_loops.get_mut() = std::mem::take(egress.parser_loops.get_mut());
    *e.loop_rounds.get_mut() = std::mem::take(egress.loop_rounds.get_mut());
    text
}

impl Emitter<'_> {
    fn function_text(&self, state: &str, name: &str) -> String {
        let ctx = self.target.context();
        let mut body = vec![];
        if self.parser_reads_packet() {
            body.extend(self.target.before_parsing());
        }
        body.extend([
            line(format!("u8 *pkt = (u8 *)(long){ctx}->data")),
            line(format!("u8 *pkt_end = (u8 *)(long){ctx}->data_end")),
        ]);
        body.extend(self.fuse_locals());
        body.push(line("u8 parser_error = 0"));
        let mut steps = self.staged_steps(None);
        steps.extend(self.entry_epilogue());
        body.extend(self.trace_returns(steps));
        let mut out = format!(
            "/* The egress pipeline of {}, on the packet the ingress deparser wrote. */\nstatic __always_inline int {name}({}, struct {state} *st{})\n{{\n",
            self.prog.name,
            self.target.context_param(),
            self.fuse_params()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }
}
