//! PSA's inline unicast path without the ingress deparser's bytes.
//!
//! Where egress runs inline right after the ingress deparser
//! ([`super::psa_egress`]), the ingress deparser would grow the packet and
//! write every header it emits, for the egress parser to read them back
//! and the egress deparser to resize again. Fused, the ingress deparser
//! only records which of its emits ran (`fuse_emitted`, bit `i` for emit
//! statement `i`) and where the received headers end (`fuse_from`): the
//! packet egress parses is those headers, in emit order, then the bytes
//! from `fuse_from` on, which have not moved. An egress extract whose
//! header lines up with the next emitted one (same field types) copies
//! it from the state; once every emitted header is taken, extracts read
//! the packet from `fuse_from`. The egress deparser replaces the received
//! headers (up to where egress parsed) by its own emits and the emitted
//! headers egress did not take, with one resize ([`super::deparser`]).
//!
//! Anything else writes the ingress headers into the packet first, as
//! the unfused program does, and goes on in the bytes (`psa_fuse_write`,
//! "materialize"): an extract of another layout than the next emitted
//! header, a state with a lookahead, an `advance`, a varbit or stack
//! extract or the packet's length; a multicast copy (made of the bytes);
//! an ingress parser error (its offset is unknown to the verifier). Each
//! is the same as parsing the written bytes, so the meaning never
//! changes. [`plan`] refuses the fusion where that cannot be shown.

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::{Expr, ExprKind, Parser, Program, Step, Stmt, Transition, Ty, VarId};
use crate::midend::visit;
use std::collections::BTreeSet;

/// Emit statements fused, at most: beyond, the ingress deparser joins
/// its paths, so the emitted bits are unknown to the verifier, which
/// then walks every extract once per emitted header it may take and once
/// through the write (bng's 8 emits: 85K -> 807K verified instructions
/// at TC, l2l3-acl's 6: 101K -> 275K).
const MAX_EMITS: usize = super::deparser::JOIN_FROM_EMITS;

/// `p4bpf_fresh_u32(ctx, field)`: a context field read anew. The parser
/// goes on after the write with the pointers of either path; read as
/// plain C, clang merges the two 32-bit loads and zero-extends the
/// result, which the verifier refuses on a packet pointer.
const FRESH_U32: &str = "#ifdef __bpf__
#define p4bpf_fresh_u32(ctx, field) ({ \\
    u64 p4bpf_r; \\
    asm volatile(\"%0 = *(u32 *)(%1 + %2)\" : \"=r\"(p4bpf_r) \\
                 : \"r\"(ctx), \"i\"(__builtin_offsetof(__typeof__(*(ctx)), field))); \\
    p4bpf_r; })
#else
#define p4bpf_fresh_u32(ctx, field) ((u64)(ctx)->field)
#endif

";

/// The largest parsed offset the egress parser starts reading the
/// packet at: the verifier checks packet reads only at bounded offsets.
const MAX_FUSED_FROM: u32 = 0x3fff;

/// What the egress parser may take from the ingress deparser.
#[derive(Clone, Debug)]
pub struct Fusion {
    /// The ingress deparser's emit statements, in the order they run
    /// (controls have no loops): bit `i` of `fuse_emitted` is `emits[i]`.
    pub emits: Vec<Expr>,
}

/// The fusion of `prog`'s unicast path, or `None` where it cannot be
/// shown to mean the same as writing then parsing the headers.
pub fn plan(prog: &Program, caches: &crate::table_cache::CachePlan) -> Option<Fusion> {
    let start = super::psa_egress::egress_start(prog)?;
    let i = &prog.intrinsics;
    // Clones are made of the bytes at the deparsers (at XDP planned at
    // the checkpoint): not shown to hold with the bytes left unwritten.
    if i.clone_i2e.is_some() || i.clone_e2e.is_some() {
        return None;
    }
    // The emitted bits are locals of the entry function: a tail call
    // between the deparser and egress would lose them.
    if super::stages::Stages::plan(prog, caches).staged() {
        return None;
    }
    let emits = emits_in_order(&prog.deparser()?.body);
    if emits.len() > MAX_EMITS || !emits.iter().all(|h| fixed_header(prog, h)) {
        return None;
    }
    let parser = egress_parser(prog, start)?;
    // A parser loop runs in a global function of its own, which cannot
    // see what is taken from the state.
    if !super::parser_loop::unbounded_loops(parser).is_empty() {
        return None;
    }
    // The headers are copied when egress parses them: nothing before
    // may write them.
    let emitted: Option<BTreeSet<VarId>> = emits.iter().map(root_var).collect();
    let written = parser_writes(parser)?;
    emitted
        .filter(|e| e.is_disjoint(&written))
        .map(|_| Fusion { emits })
}

/// The parser PSA's egress runs: the first one after the checkpoint.
fn egress_parser(prog: &Program, start: usize) -> Option<&Parser> {
    let steps = prog.pipeline.get(start..)?;
    steps.iter().find_map(|s| match s {
        Step::ParseKeepingError(p) | Step::Parse(p) => prog.parsers.get(*p),
        _ => None,
    })
}

/// Every emit statement of `body`, in source order.
fn emits_in_order(body: &[Stmt]) -> Vec<Expr> {
    let mut out = vec![];
    for s in body {
        match s {
            Stmt::Emit { header } => out.push(header.clone()),
            _ => visit::stmt_bodies(s)
                .into_iter()
                .for_each(|b| out.extend(emits_in_order(b))),
        }
    }
    out
}

/// A header of fixed size at a place known at compile time.
fn fixed_header(prog: &Program, h: &Expr) -> bool {
    let fixed_size =
        matches!(h.ty, Ty::Header(a) if prog.agg(a).is_some_and(|a| a.varbit.is_none()));
    fixed_size && fixed_place(h)
}

pub(super) fn fixed_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) => true,
        ExprKind::Field { base, .. } => fixed_place(base),
        ExprKind::Index { base, index } => {
            matches!(index.kind, ExprKind::Int(_)) && fixed_place(base)
        }
        _ => false,
    }
}

/// The variable a place is part of.
fn root_var(e: &Expr) -> Option<VarId> {
    match &e.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Field { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::StackNext(base)
        | ExprKind::StackLast(base) => root_var(base),
        _ => None,
    }
}

/// The variables `parser` may write (assignments, extracts, places
/// passed to calls), or `None` when one cannot be named.
fn parser_writes(parser: &Parser) -> Option<BTreeSet<VarId>> {
    let mut out = BTreeSet::new();
    let mut named = true;
    let mut place = |e: &Expr| match root_var(e) {
        Some(v) => {
            out.insert(v);
        }
        None => named = false,
    };
    let mut stmts: Vec<&Stmt> = parser.states.iter().flat_map(|s| &s.stmts).collect();
    while let Some(s) = stmts.pop() {
        match s {
            Stmt::Assign { lhs, .. } => place(lhs),
            Stmt::Extract { header, .. } => place(header),
            _ => {}
        }
        for e in visit::stmt_exprs(s) {
            visit::each_expr(e, |x| {
                call_args(x)
                    .iter()
                    .for_each(|a| place_if_var(a, &mut place))
            });
        }
        stmts.extend(visit::stmt_bodies(s).into_iter().flatten());
    }
    named.then_some(out)
}

fn call_args(e: &Expr) -> &[Expr] {
    match &e.kind {
        ExprKind::ExternMethod { args, .. }
        | ExprKind::ExternCall { args, .. }
        | ExprKind::Builtin { args, .. } => args,
        _ => &[],
    }
}

/// A call argument that is a place may be written through it.
fn place_if_var(a: &Expr, place: &mut impl FnMut(&Expr)) {
    if root_var(a).is_some() {
        place(a);
    }
}

/// Whether the statements or select keys of a parser state read the
/// packet other than by extracts of fixed headers: the state then starts
/// with the ingress headers written ("materialized").
pub fn state_needs_bytes(state: &crate::ir::State) -> bool {
    let mut exprs: Vec<&Expr> = vec![];
    let mut stmts: Vec<&Stmt> = state.stmts.iter().collect();
    let mut other_read = false;
    while let Some(s) = stmts.pop() {
        other_read |= match s {
            Stmt::Extract {
                header,
                varbit_bits,
            } => varbit_bits.is_some() || !fixed_place(header),
            Stmt::Advance { .. } | Stmt::AdvanceBy { .. } => true,
            _ => false,
        };
        exprs.extend(visit::stmt_exprs(s));
        stmts.extend(visit::stmt_bodies(s).into_iter().flatten());
    }
    if let Transition::Select { keys, .. } = &state.transition {
        exprs.extend(keys);
    }
    other_read || exprs.into_iter().any(reads_packet)
}

fn reads_packet(e: &Expr) -> bool {
    let mut found = false;
    visit::each_expr(e, |x| {
        found |= matches!(x.kind, ExprKind::Lookahead { .. } | ExprKind::PacketLength)
    });
    found
}

impl Emitter<'_> {
    /// The fusion the entry function (ingress) hands to egress.
    fn ingress_fusion(&self) -> Option<Fusion> {
        if self.in_egress_function || self.on_copy.get() {
            return None;
        }
        plan(self.prog, &self.caches)
    }

    fn fuse_write_name(&self) -> String {
        format!("{}_psa_fuse_write", self.c_prefix())
    }

    /// The arguments after `ctx, st` of the egress function's call from
    /// the entry function, or on a copy (`0, 0`: the copy is of the
    /// written bytes).
    pub fn fuse_call_args(&self, on_copy: bool) -> &'static str {
        match (plan(self.prog, &self.caches).is_some(), on_copy) {
            (false, _) => "",
            (true, false) => ", fuse_emitted, fuse_from",
            (true, true) => ", 0, 0",
        }
    }

    /// The ingress deparser's end when fused: record the emits that ran
    /// instead of writing them; write them only for a copy or an
    /// unbounded offset.
    pub fn fused_ingress_epilogue(&self) -> Option<Vec<CStmt>> {
        self.ingress_fusion()?;
        // The deparser's own statements: whether an emit keeps a flag is
        // found by identity.
        let bits: Vec<String> = self
            .deparser_emits()
            .into_iter()
            .enumerate()
            .map(|(i, h)| format!("((u64)!!({}) << {i})", self.emit_ran(i, h)))
            .collect();
        let mut needs_bytes = vec![format!("fuse_from > {MAX_FUSED_FROM:#x}")];
        if let Some(r) = &self.prog.intrinsics.replication {
            needs_bytes.push(format!(
                "{} != 0 /* copies are of the bytes */",
                self.expr(&r.group)
            ));
        }
        let mut write = vec![CStmt::If {
            cond: format!(
                "{}({}, st, fuse_emitted, fuse_from)",
                self.fuse_write_name(),
                self.target.context()
            ),
            then: vec![CStmt::Goto(super::DEPARSE_FAILED.into())],
            other: vec![],
        }];
        write.push(line("fuse_emitted = 0"));
        write.push(line("fuse_from = 0"));
        write.extend(self.target.reload_pointers().map(line));
        Some(vec![
            CStmt::Comment(
                "fused with egress: its parser takes these headers from the state; the bytes received stay"
                    .into(),
            ),
            line(format!("u64 fuse_emitted = {}", or_all(&bits))),
            line("u32 fuse_from = offset"),
            CStmt::If {
                cond: needs_bytes.join(" || "),
                then: write,
                other: vec![],
            },
        ])
    }

    /// Whether emit `i` of the ingress deparser (`h`) ran, as C.
    fn emit_ran(&self, i: usize, h: &Expr) -> String {
        match self.flags_emit(h) {
            true => self.emitted_flags().test(i),
            false => format!("{}.{}", self.lvalue(h), super::types::VALID),
        }
    }

    /// `NAME_psa_fuse_write`: the ingress headers `emitted` names written
    /// in place of the `parsed` bytes received, as the unfused ingress
    /// deparser writes them; 1 when the packet cannot be resized.
    pub fn fuse_write_function(&self, fusion: &Fusion) -> String {
        let ctx = self.target.context();
        let mut body = vec![
            line(format!("u8 *pkt = (u8 *)(long){ctx}->data")),
            line(format!("u8 *pkt_end = (u8 *)(long){ctx}->data_end")),
            line("u32 new_len = 0"),
        ];
        for (i, h) in fusion.emits.iter().enumerate() {
            body.push(CStmt::If {
                cond: format!("emitted & (1ULL << {i})"),
                then: self.count_header(h).into_iter().collect(),
                other: vec![],
            });
        }
        body.extend(self.resize("parsed"));
        body.push(line("u32 out = 0"));
        let emits: Vec<&Expr> = fusion.emits.iter().collect();
        body.extend(self.write_recorded(&emits, |i, _| Some(format!("emitted & (1ULL << {i})"))));
        body.push(CStmt::Return("0".into()));
        body.push(CStmt::Label(super::DEPARSE_FAILED.into()));
        body.push(CStmt::Return("1".into()));
        let mut out = FRESH_U32.to_string();
        out += &format!(
            "/* The ingress deparser's headers of {} written into the packet, where the\n * fused unicast path needs the bytes (a copy, an egress parser reading\n * them another way). */\nstatic __always_inline int {}({}, struct {} *st, u64 emitted, u32 parsed)\n{{\n",
            self.prog.name,
            self.fuse_write_name(),
            self.target.context_param(),
            self.state_type()
        );
        super::c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }
}

/// `a | b | ...`, or `0` for none.
fn or_all(parts: &[String]) -> String {
    match parts {
        [] => "0".into(),
        _ => parts.join(" | "),
    }
}

#[cfg(test)]
mod tests {
    use crate::{generate, Hook};
    use std::path::Path;

    /// A bridged header and Ethernet from ingress; `INGRESS` runs after
    /// the bridged header is set, `EGRESS_PARSER` is the egress parser's
    /// states.
    const TEMPLATE: &str = "
#include <core.p4>
#include <psa.p4>
header bridge_t { bit<32> in_port; }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t { bit<64> a; bit<64> b; bit<32> c; }
struct headers_t { bridge_t bridge; ethernet_t ethernet; ipv4_t ipv4; }
struct meta_t {}
struct empty_t {}
parser InParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_ingress_parser_input_metadata_t istd, in empty_t r, in empty_t c) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control In(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    apply {
        send_to_port(ostd, (PortId_t)2);
        hdr.bridge.setValid();
        hdr.bridge.in_port = (bit<32>)istd.ingress_port;
        INGRESS
    }
}
control InDeparser(packet_out pkt, out empty_t ci2e, out empty_t rs, out empty_t nm,
                   inout headers_t hdr, in meta_t meta, in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.bridge); pkt.emit(hdr.ethernet); }
}
parser EgParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                in psa_egress_parser_input_metadata_t istd, in empty_t nm, in empty_t ci2e,
                in empty_t ce2e) {
    EGRESS_PARSER
}
control Eg(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    apply { hdr.ethernet.src = (bit<48>)hdr.bridge.in_port; }
}
control EgDeparser(packet_out pkt, out empty_t ce2e, out empty_t rc, inout headers_t hdr,
                   in meta_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); }
}
IngressPipeline(InParser(), In(), InDeparser()) ip;
EgressPipeline(EgParser(), Eg(), EgDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
";

    const BRIDGED: &str = "state start { pkt.extract(hdr.bridge); pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: ip; default: accept; } }
        state ip { pkt.extract(hdr.ipv4); transition accept; }";

    fn c_text(ingress: &str, egress_parser: &str, hook: Hook) -> String {
        let source = TEMPLATE
            .replace("INGRESS", ingress)
            .replace("EGRESS_PARSER", egress_parser);
        let fe = p4bpf_front::check_source(Path::new("t.p4"), &source, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
        generate(&fe, "t", hook, None)
            .map(|g| g.c)
            .unwrap_or_default()
    }

    /// The entry function and what follows it.
    fn entry(c: &str) -> &str {
        c.split("\nint t_").nth(1).unwrap_or("")
    }

    #[test]
    fn a_unicast_egress_takes_the_emitted_headers_and_reads_ipv4_from_the_packet() {
        for hook in [Hook::Tc, Hook::Xdp] {
            let c = c_text("", BRIDGED, hook);
            // Both emits are taken from the state, in emit order.
            assert!(c.contains("if (next_emit == 1ULL << 0) {"), "{c}");
            assert!(c.contains("if (next_emit == 1ULL << 1) {"), "{c}");
            assert!(
                c.contains("st->egress_headers.ethernet.dst = st->headers.ethernet.dst;"),
                "{c}"
            );
            // IPv4 lines up with no emitted header: read from the packet.
            let ip = c.split("state_ip:").nth(1).unwrap_or("");
            assert!(!ip.contains("1ULL << 2"), "{ip}");
            // The entry function does not resize unless a copy or an
            // unbounded offset needs the bytes.
            let entry = entry(&c);
            assert!(
                entry.contains(
                    "u64 fuse_emitted = ((u64)!!(emitted_0) << 0) | ((u64)!!(emitted_1) << 1);"
                ),
                "{entry}"
            );
            assert!(entry.contains("if (fuse_from > 0x3fff) {"), "{entry}");
            assert!(!entry.contains("int delta"), "{entry}");
            assert!(
                entry.contains("t_psa_egress(ctx, st, fuse_emitted, fuse_from)")
                    || entry.contains("t_psa_egress(skb, st, fuse_emitted, fuse_from)")
            );
        }
    }

    #[test]
    fn an_extract_of_another_layout_writes_the_ingress_headers_first() {
        // `ipv4_t` first: 20 bytes where a 4-byte bridged header was emitted.
        let c = c_text(
            "",
            "state start { pkt.extract(hdr.ipv4); transition accept; }",
            Hook::Tc,
        );
        let start = c.split("state_start:").nth(1).unwrap_or("");
        assert!(!start.contains("next_emit == 1ULL"), "{start}");
        assert!(start.contains("if (next_emit != 0) {"), "{start}");
        assert!(
            start.contains("t_psa_fuse_write(skb, st, fuse_emitted, fuse_from)"),
            "{start}"
        );
    }

    #[test]
    fn clones_keep_the_written_packet() {
        let clone = "ostd.clone = true; ostd.clone_session_id = (CloneSessionId_t)5;";
        for hook in [Hook::Tc, Hook::Xdp] {
            let c = c_text(clone, BRIDGED, hook);
            assert!(!c.contains("psa_fuse"), "{c}");
            assert!(entry(&c).contains("int delta"), "{c}");
        }
    }
}
