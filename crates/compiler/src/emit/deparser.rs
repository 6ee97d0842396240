//! The xdp_model deparser, planned by the mid-end's parser-to-deparser
//! correspondence ([`crate::midend::correspond`]).
//!
//! Kept shape: headers stay where they were parsed; each emit writes back
//! only fields assigned indirectly and only when one was assigned on this
//! packet's path (`p4bpf_dirty`); plain assignments were already stored
//! where they happened ([`super::write_through`]). May change: the same,
//! then, when a control pushed or popped one of the first emitted headers
//! (its validity no longer says whether it was parsed), those headers
//! alone are rewritten after one resize; the stable headers after them
//! keep their bytes. Rebuilt: the parsed headers are replaced by the
//! emitted ones: the deparser's body runs once, each emit that runs with
//! its header valid recorded and counted; after it, one resize, then the
//! recorded headers are written in order (emits in a switch, an if or a
//! table's action switch count only when they run). Resizes: `bpf_xdp_adjust_head`; at
//! TC `bpf_skb_change_head` to grow and `bpf_skb_adjust_room` to shrink,
//! which the kernel allows only for IPv4/IPv6 packets (others move their
//! bytes forward and trim the tail, up to 4 KiB); at TC a change rewrites
//! every emitted header, since the shrink moves bytes after Ethernet.

use super::c::{line, CStmt};
use super::emitted_flags::EmittedFlags;
use super::types::{DIRTY, OFFSET, VALID};
use super::Emitter;
use crate::cstruct::c_ident;
use crate::ir::{AggId, Expr, Stmt, Ty};
use crate::midend::correspond::{self, Shape};
use p4bpf_layout::Hook;

/// Emits from which a rebuild's counts and writes join their paths: each
/// emit that may or may not run doubles the paths the verifier walks after
/// it, since each leaves the length at a different number (17 emits: past
/// its limit; 8 after an I2E clone's branch: past it too). Joining costs
/// a few instructions per emit, so programs with few emits keep their paths.
pub(super) const JOIN_FROM_EMITS: usize = 6;

/// `p4bpf_bounded_unknown(v, bound)` is `v`, never above `bound`; the
/// verifier loses it in a store and load at a misaligned half of a stack
/// slot and keeps only the bound, compared in the same asm (clang would
/// compare one copy and index the packet with another).
pub const BOUNDED_UNKNOWN_HELPER: &str =
    "/* `v` (at most `bound`, below 64 KiB), which the verifier then knows only by
 * `bound`: paths that leave different numbers in it go on as one. */
#ifdef __bpf__
#define p4bpf_bounded_unknown(v, bound) ({ \\
    u64 p4bpf_v = (v); \\
    u32 p4bpf_slot[2]; \\
    asm(\"*(u16 *)(%[s] + 2) = %[x]; %[x] = *(u16 *)(%[s] + 2); if %[x] <= %[n] goto +1; %[x] = %[n]\" \\
        : [x] \"+r\"(p4bpf_v) : [s] \"r\"(p4bpf_slot), [n] \"i\"(bound)); \\
    p4bpf_v; })
#else
#define p4bpf_bounded_unknown(v, bound) ((u64)(v))
#endif
";

/// After one header's count or write: the running length `var` forgotten
/// but for its bound, so the paths that had the header and those that did
/// not go on as one.
fn join_paths(var: &str, bound: u32) -> CStmt {
    line(format!("{var} = p4bpf_bounded_unknown({var}, {bound})"))
}

/// The bit of `p4bpf_offset` an extract sets on a header a control may
/// push or pop: was it parsed, whatever it is now?
const PARSED: u32 = 0x8000;

impl Emitter<'_> {
    /// How the deparser treats the packet (ebpf_model has none).
    pub fn deparse_plan(&self) -> Shape {
        // A header type PSA's egress parses again may be at two offsets;
        // a resubmitted packet must still hold the bytes received, and so
        // must a packet v1model clones (copies are of those bytes).
        let i = &self.prog.intrinsics;
        let resubmits = i.resubmit.is_some() || i.clone_i2e.is_some() || i.clone_e2e.is_some();
        if super::psa_egress::egress_start(self.prog).is_some() || resubmits {
            return Shape::Rebuilt;
        }
        match self.prog.deparser() {
            Some(deparser) => correspond::shape(self.prog, &self.facts, deparser),
            None => Shape::Kept,
        }
    }

    /// The header types whose fields the deparser may write from the
    /// state: every emitted one when it rebuilds (at TC, when anything
    /// moves), else those of the prefix it rewrites.
    pub fn rebuilt_headers(&self) -> Vec<AggId> {
        let emitted = |limit: usize| -> Vec<AggId> {
            let Some(deparser) = self.prog.deparser() else {
                return vec![];
            };
            let emits = deparser.body.iter().filter_map(|s| match s {
                Stmt::Emit { header } => match header.ty {
                    Ty::Header(a) => Some(a),
                    _ => None,
                },
                _ => None,
            });
            emits.take(limit).collect()
        };
        match (self.plan, self.hook) {
            (Shape::Kept, _) => vec![],
            (Shape::MayChange { prefix }, Hook::Xdp) => emitted(prefix),
            (Shape::MayChange { .. } | Shape::Rebuilt, _) => {
                let all = (0..self.prog.aggregates.len()).filter_map(|i| u32::try_from(i).ok());
                all.map(AggId)
                    .filter(|id| {
                        self.prog
                            .agg(*id)
                            .is_some_and(|a| a.kind == crate::ir::AggKind::Header)
                    })
                    .collect()
            }
        }
    }

    /// Whether the extract of a header of type `agg` records that it was
    /// parsed, for the deparser's check of a pushed or popped header.
    pub fn marks_parsed(&self, agg: AggId) -> bool {
        matches!(self.plan, Shape::MayChange { .. }) && !self.facts.stable(agg)
    }

    /// What an extract of `agg` stores in `p4bpf_offset` beside the offset.
    pub fn parsed_mark(&self, agg: AggId) -> String {
        if self.marks_parsed(agg) {
            format!(" | {PARSED:#x} /* parsed */")
        } else {
            String::new()
        }
    }

    /// Code before the deparser's body.
    pub fn deparser_prologue(&self) -> Vec<CStmt> {
        match self.plan {
            Shape::Kept => vec![CStmt::Comment(
                "deparser: headers keep their places; write back assigned fields".into(),
            )],
            Shape::MayChange { .. } => vec![CStmt::Comment(
                "deparser: headers keep their places unless a control pushed or popped one".into(),
            )],
            Shape::Rebuilt => self.rebuild_prologue(),
        }
    }

    /// Code after the deparser's body: the rebuild, or that of a changed
    /// prefix.
    pub fn deparser_epilogue(&self) -> Vec<CStmt> {
        let prefix = match self.plan {
            Shape::Kept => return vec![],
            Shape::Rebuilt => {
                return self
                    .fused_ingress_epilogue()
                    .unwrap_or_else(|| self.rebuild_epilogue())
            }
            Shape::MayChange { prefix } => prefix,
        };
        let Some(deparser) = self.prog.deparser() else {
            return vec![];
        };
        let emits: Vec<&Expr> = deparser
            .body
            .iter()
            .filter_map(|s| match s {
                Stmt::Emit { header } => Some(header),
                _ => None,
            })
            .collect();
        // At TC the shrink moves the bytes after Ethernet: rewrite them all.
        let prefix = match self.hook {
            Hook::Tc => emits.len(),
            Hook::Xdp => prefix.min(emits.len()),
        };
        let (moved, kept) = emits.split_at(prefix);
        let changed: Vec<String> = moved
            .iter()
            .filter(|h| matches!(h.ty, Ty::Header(a) if self.marks_parsed(a)))
            .map(|h| self.changed_since_parse(h))
            .collect();
        let cond = match changed.as_slice() {
            [] => return vec![],
            [one] => one.clone(),
            many => format!("({})", many.join(") || (")),
        };
        let join = self.joined_write_bound(moved);
        let mut rebuild = vec![line("u32 new_len = 0")];
        for h in moved {
            rebuild.extend(self.count_header(h));
            rebuild.extend(join.map(|bound| join_paths("new_len", bound)));
        }
        rebuild.extend(self.keep_from(kept));
        rebuild.extend(self.resize("keep_from"));
        rebuild.push(line("u32 out = 0"));
        for h in moved {
            rebuild.extend(self.write_whole(h));
            rebuild.extend(join.map(|bound| join_paths("out", bound)));
        }
        vec![
            CStmt::Comment(format!(
                "a control pushed or popped one of the first {} emitted headers: rewrite them",
                moved.len()
            )),
            CStmt::If {
                cond,
                then: rebuild,
                other: vec![],
            },
        ]
    }

    /// Whether `h`'s validity differs from whether it was parsed, as C. A
    /// header only extracts make valid can only have been popped: said so,
    /// the rewrite's `if (valid)` for it folds away when it alone decides.
    fn changed_since_parse(&self, h: &Expr) -> String {
        let place = self.lvalue(h);
        match h.ty {
            Ty::Header(a) if self.facts.only_falls(a) => {
                format!("!{place}.{VALID} && ({place}.{OFFSET} & {PARSED:#x})")
            }
            _ => format!("{place}.{VALID} != ({place}.{OFFSET} >> 15)"),
        }
    }

    /// `keep_from`: where the first valid header of `kept` starts (or the
    /// parsed length); from there on the packet's bytes stay.
    fn keep_from(&self, kept: &[&Expr]) -> Vec<CStmt> {
        // An else-chain reads no further than the first valid header, so
        // the verifier sees paths that differ only after it as one.
        let mut chain = vec![];
        for h in kept.iter().rev() {
            let place = self.lvalue(h);
            chain = vec![CStmt::If {
                cond: format!("{place}.{VALID}"),
                then: vec![line(format!("keep_from = {place}.{OFFSET} & 0x3fff"))],
                other: chain,
            }];
        }
        let mut out = vec![
            CStmt::Comment("the headers after them stay where they are".into()),
            line("u32 keep_from = offset"),
        ];
        out.extend(chain);
        out
    }

    /// The start of a rebuild: one flag per emit statement, set when it
    /// runs with its header valid, and the bytes they add up to.
    fn rebuild_prologue(&self) -> Vec<CStmt> {
        let mut out = vec![
            CStmt::Comment(
                "deparser: replace the parsed headers by the emitted ones (recorded, then written)"
                    .into(),
            ),
            line("u32 new_len = 0"),
        ];
        out.extend(self.emitted_flags().declarations().into_iter().map(line));
        out
    }

    /// Whether a rebuild records that the emit of `h` ran in a flag. Not
    /// when its paths are joined and it is a statement of the deparser's
    /// own body: it then runs whenever `h` is valid, and a flag per header
    /// would keep apart the paths the joins bring together.
    pub(super) fn flags_emit(&self, h: &Expr) -> bool {
        let Some(deparser) = self.prog.deparser() else {
            return true;
        };
        let top_level = deparser
            .body
            .iter()
            .any(|s| matches!(s, Stmt::Emit { header } if std::ptr::eq(header, h)));
        !top_level || self.joined_write_bound(&self.deparser_emits()).is_none()
    }

    /// Every emit statement of the deparser, in the order they can run
    /// (controls have no loops, so source order).
    pub(super) fn deparser_emits(&self) -> Vec<&Expr> {
        struct Emits<'p>(Vec<&'p Expr>);
        impl<'p> Emits<'p> {
            fn walk(&mut self, body: &'p [Stmt]) {
                for s in body {
                    match s {
                        Stmt::Emit { header } => self.0.push(header),
                        _ => crate::midend::visit::stmt_bodies(s)
                            .into_iter()
                            .for_each(|b| self.walk(b)),
                    }
                }
            }
        }
        let mut emits = Emits(vec![]);
        if let Some(deparser) = self.prog.deparser() {
            emits.walk(&deparser.body);
        }
        emits.0
    }

    /// The flags of this deparser's emits: one for each emit that
    /// [`Self::flags_emit`] records.
    pub(super) fn emitted_flags(&self) -> EmittedFlags {
        let emits = self.deparser_emits();
        EmittedFlags::new(emits.iter().map(|h| self.flags_emit(h)).collect())
    }

    /// The end of a rebuild: one resize, then the recorded headers in
    /// order (in a fused egress, then the ingress headers it left).
    fn rebuild_epilogue(&self) -> Vec<CStmt> {
        let mut out = self.fused_leftover_count();
        out.extend(self.resize("offset"));
        out.push(line("u32 out = 0"));
        let flags = self.emitted_flags();
        let emits = self.deparser_emits();
        out.extend(self.write_recorded(&emits, |i, h| self.flags_emit(h).then(|| flags.test(i))));
        out.extend(self.fused_leftover_writes());
        out
    }

    /// Writes `emits` in order, each under its condition `ran` (none:
    /// whenever valid), from `out` on.
    pub(super) fn write_recorded(
        &self,
        emits: &[&Expr],
        ran: impl Fn(usize, &Expr) -> Option<String>,
    ) -> Vec<CStmt> {
        let join = self.joined_write_bound(emits);
        let mut out = vec![];
        for (i, h) in emits.iter().enumerate() {
            match ran(i, h) {
                Some(cond) => out.push(CStmt::If {
                    cond,
                    then: self.write_whole(h),
                    other: vec![],
                }),
                None => out.extend(self.write_whole(h)),
            }
            out.extend(join.map(|bound| join_paths("out", bound)));
        }
        out
    }

    /// With more than [`JOIN_FROM_EMITS`] emits, the bound of `out` (the
    /// headers' bytes together, each varbit at its largest) under which
    /// written paths are joined.
    fn joined_write_bound(&self, emits: &[&Expr]) -> Option<u32> {
        if emits.len() <= JOIN_FROM_EMITS {
            return None;
        }
        let largest = |h: &&Expr| match h.ty {
            Ty::Header(a) => self.prog.agg(a).map(|a| {
                let varbit = a.varbit.as_ref().map_or(0, |v| v.max_bits / 8);
                a.wire_bits / 8 + varbit
            }),
            _ => None,
        };
        let bound: u32 = emits.iter().filter_map(largest).sum();
        if bound >= 0x10000 {
            return None;
        }
        self.use_helper(super::helpers::Helper::BoundedUnknown);
        Some(bound)
    }

    /// A rebuild's `packet.emit(h)`: record it, when `h` is valid.
    fn record_emit(&self, h: &Expr) -> Vec<CStmt> {
        // The emitter walks the deparser's own statements, so the emit is
        // found by identity.
        let index = self
            .deparser_emits()
            .iter()
            .position(|e| std::ptr::eq(*e, h));
        let (Some(i), Some(bytes)) = (index, self.emitted_bytes(h)) else {
            return vec![];
        };
        let mut then = vec![line(format!("new_len += {bytes}"))];
        if self.flags_emit(h) {
            then.insert(0, line(self.emitted_flags().set(i)));
        }
        let mut out = vec![CStmt::If {
            cond: format!("{}.{VALID}", self.lvalue(h)),
            then,
            other: vec![],
        }];
        let join = self.joined_write_bound(&self.deparser_emits());
        out.extend(join.map(|bound| join_paths("new_len", bound)));
        out
    }

    /// The bytes an emit of `h` writes, as C: its fixed part and, for a
    /// header with a varbit field, the bytes that field holds.
    fn emitted_bytes(&self, h: &Expr) -> Option<String> {
        let bytes = self.header_bytes(h)?;
        let varbit = match h.ty {
            Ty::Header(a) => self.prog.agg(a).and_then(|a| a.varbit.as_ref()),
            _ => None,
        };
        Some(match varbit {
            Some(v) => format!("{bytes} + {}.{}.bytes", self.lvalue(h), c_ident(&v.name)),
            None => bytes.to_string(),
        })
    }

    pub(super) fn count_header(&self, h: &Expr) -> Option<CStmt> {
        let bytes = self.emitted_bytes(h)?;
        Some(CStmt::If {
            cond: format!("{}.{VALID}", self.lvalue(h)),
            then: vec![line(format!("new_len += {bytes}"))],
            other: vec![],
        })
    }

    /// Makes room for `new_len` bytes of headers in place of the first
    /// `parsed` bytes, then refreshes the packet pointers.
    pub(super) fn resize(&self, parsed: &str) -> Vec<CStmt> {
        if self.target.moving_needs_shrink() {
            self.use_helper(super::helpers::Helper::SkbResize);
        }
        let mut out = vec![
            line(format!("int delta = (int){parsed} - (int)new_len")),
            CStmt::If {
                cond: format!(
                    "delta != 0 && {}",
                    self.target.move_start_fails("delta", parsed)
                ),
                then: vec![CStmt::Goto(super::DEPARSE_FAILED.into())],
                other: vec![],
            },
        ];
        out.extend(self.target.reload_pointers().map(line));
        out
    }

    fn header_bytes(&self, h: &Expr) -> Option<u32> {
        match h.ty {
            Ty::Header(a) => self.prog.agg(a).map(|a| a.wire_bits / 8),
            _ => None,
        }
    }

    /// `packet.emit(h)`.
    pub fn emit_header(&self, h: &Expr) -> Vec<CStmt> {
        if self.plan == Shape::Rebuilt {
            return self.record_emit(h);
        }
        let Ty::Header(agg) = h.ty else { return vec![] };
        let Some(a) = self.prog.agg(agg) else {
            return vec![];
        };
        let keep =
            |i: usize| self.writes.fields.contains(&(agg, i)) && !self.written_through(agg, i);
        if !(0..a.fields.len()).any(keep) {
            return vec![];
        }
        let bytes = a.wire_bits / 8;
        let place = self.lvalue(h);
        let mut body = vec![
            line(format!("u32 at = {place}.{OFFSET} & 0x3fff")),
            CStmt::If {
                cond: format!("pkt + at + {bytes} > pkt_end"),
                then: vec![CStmt::Goto(super::DEPARSE_FAILED.into())],
                other: vec![],
            },
            line("u8 *hdr_start = pkt + at"),
        ];
        body.extend(self.write_header(a, "hdr_start", &place, keep));
        // Only when a field was assigned on this packet's path (clang then
        // moves the store into that path), and only into a parsed header.
        let mut cond = format!("{place}.{VALID} && {place}.{DIRTY}");
        if self.marks_parsed(agg) {
            cond.push_str(&format!(" && ({place}.{OFFSET} & {PARSED:#x})"));
        }
        vec![
            CStmt::Comment(format!("emit {}", a.name)),
            CStmt::If {
                cond,
                then: body,
                other: vec![],
            },
        ]
    }

    /// Writes all of `h`, when valid, at `out` and moves `out` past it.
    fn write_whole(&self, h: &Expr) -> Vec<CStmt> {
        let Ty::Header(agg) = h.ty else { return vec![] };
        let Some(a) = self.prog.agg(agg) else {
            return vec![];
        };
        let bytes = a.wire_bits / 8;
        let place = self.lvalue(h);
        let mut body = vec![
            CStmt::If {
                cond: format!("pkt + out + {bytes} > pkt_end"),
                then: vec![CStmt::Goto(super::DEPARSE_FAILED.into())],
                other: vec![],
            },
            line("u8 *hdr_start = pkt + out"),
        ];
        body.extend(self.write_header(a, "hdr_start", &place, |_| true));
        if let Some(v) = &a.varbit {
            body.extend(self.emit_varbit(v, bytes, &place));
        }
        body.push(line(format!("out += {bytes}")));
        vec![
            CStmt::Comment(format!("emit {}", a.name)),
            CStmt::If {
                cond: format!("{place}.{VALID}"),
                then: body,
                other: vec![],
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use crate::{generate, Hook};
    use std::path::Path;

    /// Ethernet, optional IPv4, UDP; a tag only `CONTROL` may push; the
    /// deparser is `EMITS`.
    const TEMPLATE: &str = "
#include <xdp_model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> ty; }
header tag_t { bit<16> magic; bit<16> ty; }
header ip_t { bit<64> a; bit<64> b; bit<8> ttl; bit<8> proto; bit<16> sum; }
header udp_t { bit<16> sp; bit<16> dp; bit<16> len; bit<16> sum; }
struct hs { eth_t eth; tag_t tag; ip_t ip; udp_t udp; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.eth); transition select(hdr.eth.ty) { 0x0800: ip; default: accept; } }
    state ip { p.extract(hdr.ip); transition select(hdr.ip.proto) { 17: udp; default: accept; } }
    state udp { p.extract(hdr.udp); transition accept; }
}
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    apply { omd.output_port = 0; omd.output_action = xdp_action.XDP_PASS; CONTROL }
}
control dprs(in hs hdr, packet_out p) { apply { EMITS } }
xdp(prs(), sw(), dprs()) main;
";

    const ALL: &str = "p.emit(hdr.eth); p.emit(hdr.tag); p.emit(hdr.ip); p.emit(hdr.udp);";

    fn c_text(control: &str, emits: &str, hook: Hook) -> String {
        let source = TEMPLATE.replace("CONTROL", control).replace("EMITS", emits);
        let fe = p4bpf_front::check_source(Path::new("t.p4"), &source, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
        generate(&fe, "t", hook, None)
            .map(|g| g.c)
            .unwrap_or_default()
    }

    /// The entry function's deparser and verdict.
    fn deparser_part(c: &str) -> &str {
        c.split("/* control dprs").nth(1).unwrap_or("")
    }

    #[test]
    fn emitting_every_header_of_the_struct_keeps_the_packet_in_place() {
        let c = c_text("hdr.ip.ttl = 3;", ALL, Hook::Xdp);
        let deparser = deparser_part(&c);
        assert!(
            deparser.contains("headers keep their places; write back"),
            "{deparser}"
        );
        assert!(!c.contains("bpf_xdp_adjust_head"), "{deparser}");
        // The tag is never valid: neither emitted nor tested.
        assert!(!c.contains("headers.tag"), "{c}");
    }

    #[test]
    fn a_push_rewrites_only_the_headers_up_to_it() {
        let push = "if (hdr.ip.isValid()) { hdr.tag.setValid(); hdr.tag.ty = hdr.eth.ty; hdr.eth.ty = 0x88b5; }";
        let c = c_text(push, ALL, Hook::Xdp);
        let deparser = deparser_part(&c);
        assert!(
            deparser.contains(
                "if (st->headers.tag.p4bpf_valid != (st->headers.tag.p4bpf_offset >> 15))"
            ),
            "{deparser}"
        );
        assert!(
            deparser.contains("keep_from = st->headers.ip.p4bpf_offset & 0x3fff"),
            "{deparser}"
        );
        assert!(
            deparser.contains("out += 4") && deparser.contains("out += 14"),
            "{deparser}"
        );
        assert!(
            !deparser.contains("out += 20"),
            "IPv4 keeps its bytes: {deparser}"
        );
        assert!(
            c.contains("st->headers.tag.p4bpf_offset = offset | 0x8000")
                || !c.contains("extract tag_t")
        );
        // At TC the shrink moves what follows Ethernet: everything is rewritten.
        let tc = c_text(push, ALL, Hook::Tc);
        assert!(deparser_part(&tc).contains("out += 20"), "{tc}");
    }

    #[test]
    fn a_header_only_popped_is_rewritten_only_while_another_moves() {
        // IPv4 is only ever popped: the rewrite runs when it was, and then
        // clang can drop its `if (valid)` write.
        let pop = "hdr.ip.setInvalid();";
        let c = c_text(pop, ALL, Hook::Xdp);
        assert!(
            deparser_part(&c).contains(
                "if (!st->headers.ip.p4bpf_valid && (st->headers.ip.p4bpf_offset & 0x8000))"
            ),
            "{c}"
        );
        // With a push beside it, either may start the rewrite.
        let both = "hdr.ip.setInvalid(); hdr.tag.setValid();";
        let c = c_text(both, ALL, Hook::Xdp);
        assert!(
            deparser_part(&c).contains(
                "if ((st->headers.tag.p4bpf_valid != (st->headers.tag.p4bpf_offset >> 15)) || (!st->headers.ip.p4bpf_valid && (st->headers.ip.p4bpf_offset & 0x8000)))"
            ),
            "{c}"
        );
    }

    #[test]
    fn emits_inside_a_switch_or_an_if_count_in_the_new_length() {
        let push = "hdr.tag.setValid();";
        let emits = "p.emit(hdr.eth); switch (hdr.eth.ty) { 0x0800: { p.emit(hdr.tag); } default: { } } if (hdr.ip.ttl != 1) { p.emit(hdr.ip); } p.emit(hdr.udp);";
        let c = c_text(push, emits, Hook::Xdp);
        let deparser = deparser_part(&c);
        let (body, written) = deparser.split_once("dprs_end:").unwrap_or_default();
        // Recorded where the emit runs, counted there.
        let case = body.split("case 0x800").nth(1).unwrap_or("");
        let case = case.split("break").next().unwrap_or("");
        assert!(
            case.contains("emitted_1 = 1") && case.contains("new_len += 4"),
            "{body}"
        );
        let taken = body.split("!= 1").nth(1).unwrap_or("");
        assert!(
            taken.contains("emitted_2 = 1") && taken.contains("new_len += 20"),
            "{body}"
        );
        // Written after the one resize, in order, as recorded.
        let after_resize = written.split("bpf_xdp_adjust_head").nth(1).unwrap_or("");
        let order: Vec<usize> = (0..4)
            .filter_map(|i| after_resize.find(&format!("if (emitted_{i})")))
            .collect();
        assert_eq!(order.len(), 4, "{written}");
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{written}");
    }
}
